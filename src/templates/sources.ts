// The built-in traffic-source templates (issue 29). Each one is taken from the public document in its doc_url,
// checked on the date in `verified`; a platform whose macros no document showed is left out, not guessed.
// Link parameter names are svc's choice (short, never one svc fills itself); the macros are the source's.
// postback_url is a svc postback template: {payout} {status} {tid} are svc's, {<param>} reads the stored
// link parameter (docs/templates.md). Changing an entry bumps REGISTRY_VERSION (model.ts).
import type { SourceTemplate } from './model'

const V = '2026-11-26'
const KINTURA = 'https://kintura.com/docs/presets/pairings'
const RULER = 'https://ruler-documentation.readme.io/docs/tagging-urls'
const API_ONLY = 'takes conversions only through its own API, not a postback URL: postback_url is null. '

export const BUILTIN_SOURCES: readonly SourceTemplate[] = [
  {
    id: 'google-ads', name: 'Google Ads', category: 'search',
    fills: [
      { role: 'click_id', param: 'gclid', macro: null },
      { role: 'campaign', param: 'campaign', macro: '{campaignid}' },
      { role: 'zone', param: 'adgroup', macro: '{adgroupid}' },
      { role: 'creative', param: 'creative', macro: '{creative}' },
      { role: 'other', param: 'keyword', macro: '{keyword}' },
    ],
    postback_url: null, doc_url: RULER, verified: V,
    notes: 'Google Ads ' + API_ONLY + 'Auto-tagging appends gclid to the link (docs.clar.io, Ad Engine URL Tracking Parameters); svc keeps it with the click. ' +
      'Put link_params in the tracking template or final URL suffix.',
  },
  {
    id: 'meta', name: 'Meta (Facebook, Instagram)', category: 'social',
    fills: [
      { role: 'click_id', param: 'fbclid', macro: null },
      { role: 'campaign', param: 'campaign', macro: '{{campaign.id}}' },
      { role: 'zone', param: 'adset', macro: '{{adset.id}}' },
      { role: 'creative', param: 'ad', macro: '{{ad.id}}' },
    ],
    postback_url: null, doc_url: RULER, verified: V,
    notes: 'Meta ' + API_ONLY + 'Meta adds fbclid to the link itself (Everflow SDK: fbclid, the Facebook click ID). Paste link_params into the ad\'s URL parameters.',
  },
  {
    id: 'tiktok', name: 'TikTok Ads', category: 'social',
    fills: [
      { role: 'click_id', param: 'ttclid', macro: null },
      { role: 'campaign', param: 'campaign', macro: '__CAMPAIGN_ID__' },
      { role: 'zone', param: 'adgroup', macro: '__AID__' },
      { role: 'creative', param: 'ad', macro: '__CID__' },
    ],
    postback_url: null, doc_url: 'https://ruler-documentation.readme.io/docs/tiktok-ads', verified: V,
    notes: 'TikTok ' + API_ONLY + 'TikTok adds ttclid to the link itself. The macros are written with two underscores on each side.',
  },
  {
    id: 'microsoft-ads', name: 'Microsoft Advertising (Bing)', category: 'search',
    fills: [
      { role: 'campaign', param: 'campaign', macro: '{CampaignId}' },
      { role: 'zone', param: 'adgroup', macro: '{AdGroupId}' },
      { role: 'creative', param: 'ad', macro: '{AdId}' },
      { role: 'other', param: 'target', macro: '{TargetId}' },
    ],
    postback_url: null, doc_url: RULER, verified: V,
    notes: 'Microsoft Advertising ' + API_ONLY + 'Add link_params to the campaign\'s tracking template.',
  },
  {
    id: 'pinterest', name: 'Pinterest Ads', category: 'social',
    fills: [
      { role: 'campaign', param: 'campaign', macro: '{campaignid}' },
      { role: 'zone', param: 'adgroup', macro: '{adgroupid}' },
      { role: 'creative', param: 'pin', macro: '{adid}' },
    ],
    postback_url: null, doc_url: RULER, verified: V,
    notes: 'Pinterest ' + API_ONLY,
  },
  {
    id: 'taboola', name: 'Taboola', category: 'native',
    fills: [
      { role: 'click_id', param: 'tbl_click', macro: '{click_id}' },
      { role: 'zone', param: 'site', macro: '{site_id}' },
      { role: 'campaign', param: 'campaign', macro: '{campaign_id}' },
      { role: 'creative', param: 'item', macro: '{campaign_item_id}' },
    ],
    postback_url: 'https://trc.taboola.com/actions-handler/log/3/s2s-action?click-id={tbl_click}&name={status}&revenue={payout}&currency={currency}&orderid={tid}',
    doc_url: 'https://developers.taboola.com/pixel/docs/the-postback-url', verified: V,
    notes: 'name must be the Event Name of a conversion defined in Taboola Realize: name your conversion types after it or write the event name instead of {status}. ' +
      `Tracking macros: ${KINTURA}/taboola/cityads. The click-id parameter must be spelled click-id.`,
  },
  {
    id: 'mgid', name: 'MGID', category: 'native',
    fills: [
      { role: 'click_id', param: 'mgid_click', macro: '{click_id}' },
      { role: 'zone', param: 'widget', macro: '{widget_id}' },
      { role: 'creative', param: 'teaser', macro: '{teaser_id}' },
      { role: 'campaign', param: 'campaign', macro: '{campaign_id}' },
      { role: 'cost', param: 'cost', macro: '{click_price}' },
    ],
    postback_url: 'https://a.mgid.com/postback?c={mgid_click}&e={status}&r={payout}',
    doc_url: 'https://help.mgid.com/postback-setup', verified: V,
    notes: 'e is the event (goal) name created in the campaign\'s conversion settings: name your conversion types after it or write it instead of {status}. ' +
      'Macros: help.mgid.com, Macros. Setting up Non-standard Markup; MGID warns that {click_price} may differ from what is finally billed.',
  },
  {
    id: 'clickadu', name: 'Clickadu', category: 'pop',
    fills: [
      { role: 'click_id', param: 'cd_subid', macro: '${SUBID}' },
      { role: 'zone', param: 'zone', macro: '{zoneid}' },
      { role: 'campaign', param: 'campaign', macro: '{campaignid}' },
      { role: 'cost', param: 'cost', macro: '{cost}' },
    ],
    postback_url: 'http://sconvtrk.com/conversion/YOUR_KEY/?visitor_id={cd_subid}',
    doc_url: 'https://support.clickadu.com/hc/en-us/articles/360001757198-How-to-integrate-Clickadu-S2S-conversion-tracking-', verified: V,
    notes: 'Copy your postback URL from the Tracking tab and put its key in place of YOUR_KEY (the URL form: ' + `${KINTURA}/clickadu/clickbooth).`,
  },
  {
    id: 'trafficstars', name: 'TrafficStars', category: 'pop',
    fills: [
      { role: 'click_id', param: 'ts_click', macro: '{click_id}' },
      { role: 'zone', param: 'spot', macro: '{adspot_id}' },
      { role: 'other', param: 'site', macro: '{site_id}' },
      { role: 'creative', param: 'creative', macro: '{creative_id}' },
      { role: 'campaign', param: 'campaign', macro: '{campaign_id}' },
      { role: 'cost', param: 'cost', macro: '{cost}' },
    ],
    postback_url: 'https://tsyndicate.com/api/v1/cpa/action?clickid={ts_click}&value={payout}&key=YOUR_KEY',
    doc_url: 'https://trafficstars.com/faq/articles/how-to-set-up-tracking-conversions', verified: V,
    notes: 'Generate the postback in Tracking Tools and put its key in place of YOUR_KEY. Tokens: support.trafficstars.com, TrafficStars tokens.',
  },
  {
    id: 'exoclick', name: 'ExoClick', category: 'display',
    fills: [{ role: 'click_id', param: 'exo_click', macro: '{conversions_tracking}' }],
    postback_url: null, doc_url: 'https://docs.exoclick.com/docs/conversion-tracking-api/', verified: V,
    notes: 'The conversion URL carries your goal id and your account\'s domain: copy it from Campaigns > Conversion Tracking and set it as postback_url with tag={exo_click}.',
  },
  {
    id: 'traffic-factory', name: 'Traffic Factory', category: 'adult',
    fills: [
      { role: 'click_id', param: 'tf_click', macro: '{conversions_tracking}' },
      { role: 'cost', param: 'cost', macro: '{target.bid}' },
      { role: 'campaign', param: 'campaign', macro: '{campaign.id}' },
      { role: 'creative', param: 'banner', macro: '{banner.id}' },
      { role: 'zone', param: 'target', macro: '{target.name}' },
    ],
    postback_url: null, doc_url: `${KINTURA}/traffic-factory/m4trix`, verified: V,
    notes: 'The document gives no postback URL: set postback_url from your account with {tf_click} for the click id.',
  },
  {
    id: 'traffic-force', name: 'Traffic Force', category: 'display',
    fills: [
      { role: 'click_id', param: 'tforce_click', macro: '{CLICK_ID}' },
      { role: 'campaign', param: 'campaign', macro: '{campaign_id}' },
      { role: 'creative', param: 'ad', macro: '{ad_id}' },
      { role: 'zone', param: 'site', macro: '{site_id}' },
    ],
    postback_url: 'http://delivery.trafficforce.com/conv.php?click_id={tforce_click}',
    doc_url: `${KINTURA}/traffic-force/clickbooth`, verified: V, notes: '',
  },
  {
    id: 'richpush', name: 'RichPush', category: 'push',
    fills: [
      { role: 'click_id', param: 'rp_click', macro: '[CLICK_ID]' },
      { role: 'cost', param: 'cost', macro: '[BID_PRICE]' },
      { role: 'zone', param: 'site', macro: '[SITE_ID]' },
      { role: 'creative', param: 'creative', macro: '[CREATIVE_ID]' },
      { role: 'campaign', param: 'campaign', macro: '[CAMPAIGN_ID]' },
      { role: 'other', param: 'pub', macro: '[PUBLISHER_ID]' },
    ],
    postback_url: 'http://rtb.adx1.com/log?action=conversion&key={rp_click}&price={payout}',
    doc_url: `${KINTURA}/rich-push.co/clickpromise`, verified: V, notes: '',
  },
  {
    id: 'advertizer', name: 'Advertizer', category: 'push',
    fills: [
      { role: 'click_id', param: 'adv_click', macro: '[[subid]]' },
      { role: 'cost', param: 'cost', macro: '[[click_cost]]' },
      { role: 'zone', param: 'place', macro: '[[pid]]' },
      { role: 'other', param: 'partner', macro: '[[partner_id]]' },
    ],
    postback_url: 'http://postback.advertizer.com/pb.php?clickid={adv_click}&amount={payout}&advertiser_id=YOUR_ADVERTISER_ID&key=YOUR_KEY',
    doc_url: `${KINTURA}/advertizer/trafficcompany`, verified: V,
    notes: 'Put your advertiser id and key from your Advertizer account in place of YOUR_ADVERTISER_ID and YOUR_KEY.',
  },
  {
    id: 'ad-maven', name: 'Ad-Maven', category: 'pop',
    fills: [
      { role: 'click_id', param: 'am_click', macro: '{conversion}' },
      { role: 'cost', param: 'cost', macro: '{bid}' },
      { role: 'zone', param: 'site', macro: '{site_id}' },
      { role: 'creative', param: 'banner', macro: '{banner}' },
      { role: 'campaign', param: 'campaign', macro: '{campaign}' },
    ],
    postback_url: 'https://xml.ad-maven.com/conversion?c={am_click}&count=1&value={payout}',
    doc_url: `${KINTURA}/ad-maven/m4trix`, verified: V, notes: '',
  },
  {
    id: 'tonic', name: 'Tonic', category: 'search',
    fills: [
      { role: 'click_id', param: 'tonic_click', macro: '[clickid]' },
      { role: 'cost', param: 'cost', macro: '[cpc]' },
      { role: 'campaign', param: 'campaign', macro: '[campaign_id]' },
      { role: 'zone', param: 'src', macro: '[sourceid]' },
    ],
    postback_url: 'https://tnccv.com/conversion/postback?value={payout}&clickid={tonic_click}',
    doc_url: `${KINTURA}/tonic/adsup`, verified: V, notes: '',
  },
  {
    id: 'big-hog', name: 'Big Hog', category: 'other',
    fills: [
      { role: 'click_id', param: 'bh_click', macro: '{conversion}' },
      { role: 'cost', param: 'cost', macro: '{bid}' },
      { role: 'campaign', param: 'campaign', macro: '{campaign_id}' },
      { role: 'zone', param: 'slammer', macro: '{slammer_id}' },
      { role: 'other', param: 'cell', macro: '{cell_id}' },
    ],
    postback_url: null, doc_url: `${KINTURA}/big-hog/clickpromise`, verified: V,
    notes: 'The document gives no postback URL: set postback_url from your account with {bh_click} for the click id.',
  },
  {
    id: 'content-ad', name: 'Content.ad', category: 'native',
    fills: [
      { role: 'zone', param: 'domain', macro: '[did]' },
      { role: 'creative', param: 'ad', macro: '[adid]' },
      { role: 'campaign', param: 'campaign', macro: '[cid]' },
    ],
    postback_url: null, doc_url: `${KINTURA}/content.ad/linktrust`, verified: V,
    notes: 'The document names no click id macro and no postback URL.',
  },
  {
    id: 'decisive', name: 'Decisive', category: 'native',
    fills: [
      { role: 'click_id', param: 'dec_click', macro: '{{{bidhash}}}' },
      { role: 'creative', param: 'ad', macro: '{{{ad_id}}}' },
      { role: 'zone', param: 'placement', macro: '{{{placement}}}' },
      { role: 'other', param: 'image', macro: '{{{creative_id}}}' },
    ],
    postback_url: null, doc_url: `${KINTURA}/decisive/terraleads`, verified: V,
    notes: 'The document gives no postback URL: set postback_url from your account with {dec_click} for the click id.',
  },
  {
    id: 'ezmob', name: 'EZmob', category: 'pop',
    fills: [
      { role: 'click_id', param: 'ez_click', macro: '{subid}' },
      { role: 'campaign', param: 'campaign', macro: '{campaign}' },
      { role: 'creative', param: 'banner', macro: '{banner}' },
      { role: 'cost', param: 'cost', macro: '{bid}' },
      { role: 'zone', param: 'pub', macro: '{publisher}' },
    ],
    postback_url: null, doc_url: 'https://helpdesk.ezmob.com/en/article/tracking-tokens-and-parameters-explained-r5m1yu/', verified: V,
    notes: 'The macros page gives no postback URL: set postback_url from your account with {ez_click} for the click id.',
  },
]
