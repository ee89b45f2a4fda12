// What the data's licences ask svc to say (docs/geoip.md): README, `svc --help` and `svc version` print
// it; a page that shows as_org (the dashboard's click lookup) links to db-ip.com as DB-IP's licence asks.

/** The packages the embedded tables are built from (package.json pins their versions). */
export const GEOIP_PACKAGES = ['@ip-location-db/geo-whois-asn-country', '@ip-location-db/asn'] as const

export const GEOIP_ATTRIBUTION =
  'IP data: country from @ip-location-db/geo-whois-asn-country (CC0; RIR statistics by the NRO, nro.net, CC BY 4.0); ' +
  'ASN and network names from @ip-location-db/asn (CC BY 4.0: RouteViews, routeviews.org; DB-IP, db-ip.com; NRO). ' +
  'IP Geolocation by DB-IP: https://db-ip.com'

/** 2.3.2026061719 → 2026-06-17: the packages' versions carry the day the data was published. */
export function versionDate(version: string): string {
  const m = /^\d+\.\d+\.(\d{4})(\d{2})(\d{2})\d*$/.exec(version)
  return m ? `${m[1]}-${m[2]}-${m[3]}` : 'unknown'
}
