// The small HTML pages people see from an email link (unsubscribe, sign-in): see http/info-page.ts.
export { infoPage as page } from '../http/info-page'
