import pkg from '../package.json' with { type: 'json' }
import { GEOIP_ATTRIBUTION, GEOIP_PACKAGES, versionDate } from './lib/geoip/attribution'

export const VERSION: string = pkg.version

/** What the embedded IP data's licences ask to be said (`svc version`, `svc --help`), with the data's date. */
export const IP_DATA = `IP data of ${versionDate(pkg.devDependencies[GEOIP_PACKAGES[0]])}. ${GEOIP_ATTRIBUTION}`
