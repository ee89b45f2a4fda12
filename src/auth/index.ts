// The auth feature's face: who may grant what (permissions.ts; the permission model itself, sections,
// AdminUser and can(), is lib/permissions.ts) and the session cookie signer (session.ts), which the admin's
// sessions and email's customer accounts both use, each under a key of its own. No routes: login and
// logout are admin/session/.
export {
  effectivePermissions, firstUngrantable, granterOf, grantsAsOwner, mayGrantSection, requireConfirmed, samePermissions, selfOf,
  type Granter,
} from './permissions'
export { SESSION_COOKIE, SessionSigner, type SessionClaims } from './session'
