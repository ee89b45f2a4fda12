// connection: hosting | residential | unknown, decided once per ASN when the tables are built (by
// scripts/build-geoip.ts, or when an operator's CSV directory is loaded).
//
// HOSTING_ASNS is this project's own curation (2026-06): the cloud, VPS and dedicated-server networks an
// affiliate buyer sees most in bot traffic, each checked against its org name in @ip-location-db/asn
// 2.3.2026061719 (the comment beside it). Networks that carry real people on purpose are left out even
// though they run data centres: Cloudflare 13335 (WARP and iCloud Private Relay egress), Akamai 36183
// (Private Relay), Zscaler (corporate proxies of employees), CDNs and transit carriers. Google 15169 and
// Yandex 13238 are in: people do not browse from them; their crawlers, link-preview and mail-image
// fetchers, Apps Script and part of Google Cloud do.
//
// Beyond the list, an org name with a hosting word counts as hosting (a guess: it catches the long tail
// of small VPS hosts, and now and then a "City of St. Cloud"). Any other network is `residential`, which
// here means "not known to be a data centre" (mobile carriers and offices included); no ASN → `unknown`.

export type Connection = 'hosting' | 'residential' | 'unknown'
/** The order of the codes the tables store (GeoTables.asnConnection). */
export const CONNECTIONS: readonly Connection[] = ['unknown', 'hosting', 'residential']

export const HOSTING_ASNS: ReadonlySet<number> = new Set([
  // Hyperscale clouds
  16509, 14618, 8987, // Amazon.com, Inc. (AWS); Amazon Data Services Ireland
  15169, 396982, 19527, 139070, // Google LLC (15169 incl. crawlers; 396982 Google Cloud); Google Asia Pacific
  8075, 8068, 8069, // Microsoft Corporation (Azure)
  31898, // Oracle Corporation (OCI)
  36351, // IBM Cloud (SoftLayer)
  45102, 37963, // Alibaba (US) Technology; Hangzhou Alibaba Advertising (Alibaba Cloud)
  132203, 45090, 132591, // Shenzhen Tencent Computer Systems (Tencent Cloud); Tencent global network
  136907, 55990, // Huawei International; Huawei Cloud Service data center
  135377, // UCloud Information Technology (HK)
  38365, // Beijing Baidu Netcom (Baidu cloud, crawlers)
  396986, // Bytedance Inc. (crawlers)
  13238, 200350, // YANDEX LLC (services, crawlers); Yandex.Cloud LLC
  // VPS and cloud hosts
  14061, 393406, // DigitalOcean, LLC
  63949, // Akamai Technologies (Linode)
  20473, // The Constant Company (Vultr, Choopa)
  16276, 35540, // OVH SAS
  24940, 213230, // Hetzner Online GmbH
  51167, 40021, // Contabo GmbH, Contabo Inc.
  12876, 29447, // Scaleway SAS
  202053, // UpCloud Ltd
  197540, // netcup GmbH
  49505, // JSC Selectel
  8560, // IONOS SE
  47583, // Hostinger International
  53667, // FranTech Solutions (BuyVM)
  36007, // Kamatera, Inc.
  7506, // GMO Internet Group
  9370, // SAKURA Internet
  // Dedicated servers and colocation
  60781, 16265, 28753, 30633, // LeaseWeb (NL, Network, DE, USA)
  9009, // M247 Europe SRL
  15395, 27357, 19994, // Rackspace
  46606, // Unified Layer (Bluehost)
  26347, // New Dream Network (DreamHost)
  26496, 398101, // GoDaddy.com, LLC
  22612, // Namecheap, Inc.
  32244, // Liquid Web
  3842, // InMotion Hosting
  36352, 54290, // HostPapa
  19318, // Interserver, Inc
  23470, // ReliableSite.Net
  8100, // QuadraNet Enterprises
  29802, // HIVELOCITY, Inc.
  46844, // Sharktech
  32097, // WholeSale Internet
  11878, // tzulo, inc.
  396356, // Latitude.sh
  20454, // SECURED SERVERS LLC
  25820, // IT7 Networks
  18779, // EGIHosting
  40065, // CNSERVERS LLC
  54600, // PEG TECH INC
  21859, // Zenlayer Inc
  3223, // Voxility LLP
  62240, // Clouvider Limited
  212238, 60068, // Datacamp Limited (CDN77)
  42831, // UK Dedicated Servers
  201814, // MEVSPACE sp. z o.o.
  206264, // Amarutu Technology
  202425, // IP Volume inc
  43350, // NForce Entertainment
  49981, // WorldStream B.V.
  50673, // Serverius Holding
  44066, 31400, // firstcolo GmbH
  57169, // EDIS GmbH
  4785, 3214, // xTom
  51852, // Private Layer INC
  35916, // MULTACOM CORPORATION
  8972, // Host Europe GmbH
])

/** Org-name words that mark a hosting network not on the list. */
const HOSTING_WORDS = /hosting|cloud|data ?cent(?:er|re)|server|\bvps\b|colocation/i

/** Networks with a hosting word in their name that carry real visitors (see the file comment). */
const NOT_HOSTING: ReadonlySet<number> = new Set([13335]) // Cloudflare, Inc.

export function connectionOf(asn: number, org: string): Connection {
  if (asn === 0) return 'unknown'
  if (HOSTING_ASNS.has(asn)) return 'hosting'
  if (!NOT_HOSTING.has(asn) && HOSTING_WORDS.test(org)) return 'hosting'
  return 'residential'
}
