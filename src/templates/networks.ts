// The built-in affiliate-network templates (issue 29). Each one is taken from the public document in its
// doc_url, checked on the date in `verified`; a network whose macros no document showed is left out, not
// guessed. click_id_param is the offer-URL parameter that carries svc's {click_id}; `postback` maps the
// /postback parameters (click_id, payout, status, tid: their names in postback/aliases.ts) to the network's
// own macros. /postback has no currency parameter: a payout like "5 USD" names its currency itself.
// Changing an entry bumps REGISTRY_VERSION (model.ts).
import type { NetworkTemplate } from './model'

const V = '2026-11-26'
const KINTURA = 'https://kintura.com/docs/presets/pairings'

export const BUILTIN_NETWORKS: readonly NetworkTemplate[] = [
  {
    id: 'cake', name: 'CAKE', platform: 'cake', click_id_param: 's2',
    postback: { click_id: '#s2#', payout: '#price#', tid: '#leadid#' },
    doc_url: 'https://support.getcake.com/en/support/solutions/articles/5000546096', verified: V,
    notes: 's2 is CAKE\'s usual slot for a click id (s1 is for sub-affiliate ids, 50 characters; s2-s5 hold 100). ' +
      '#price# is the payout, #leadid# CAKE\'s conversion id (token list: support.getcake.com article 5000545788).',
  },
  {
    id: 'tune', name: 'TUNE (HasOffers)', platform: 'tune', click_id_param: 'aff_sub',
    postback: { click_id: '{aff_sub}', payout: '{payout}', tid: '{transaction_id}' },
    doc_url: 'https://docs.tracklysms.com/integrations/tune', verified: V,
    notes: 'Set it as a global postback (Setup > Postbacks) or per offer. Networks on TUNE (HasOffers) share these parameters and macros.',
  },
  {
    id: 'everflow', name: 'Everflow', platform: 'everflow', click_id_param: 'sub1',
    postback: { click_id: '{sub1}', payout: '{payout}', tid: '{transaction_id}' },
    doc_url: 'https://helpdesk.everflow.io/collaborator/managing-postbacks-as-a-partner', verified: V,
    notes: 'Partner Platform > Postbacks, type Conversion, scope Global. {transaction_id} is Everflow\'s click id; sub1-sub5 are the tracking link\'s sub ids (developers.everflow.io).',
  },
  {
    id: 'affise', name: 'Affise', platform: 'affise', click_id_param: 'sub1',
    postback: { click_id: '{sub1}', payout: '{sum}', status: '{status}', tid: '{transactionid}' },
    doc_url: 'https://help-center.affise.com/en/articles/6655842-affiliate-postback-macros-affiliates', verified: V,
    notes: 'Affise has no click id macro for affiliates: the id travels in sub1. {status} is a number: 1 approved, 2 pending, 3 declined, 5 hold; ' +
      'map those in the status map (Conversions > status map) to your conversion types.',
  },
  {
    id: 'impact', name: 'impact.com', platform: 'impact', click_id_param: 'subId1',
    postback: { click_id: '{SubId1}', payout: '{Payout}', status: '{ActionStatus}', tid: '{OID}' },
    doc_url: 'https://affpixel.com/blog/impact-postback-setup', verified: V,
    notes: 'Settings > Action Tracker URLs. Macros are case-sensitive. An Action Tracker fires on each status change (PENDING, APPROVED, REVERSED): ' +
      'map them in the status map. subId1 on the tracking link: impact.com help, Sub ID & Shared ID parameters explained for partners.',
  },
  {
    id: 'clickbooth', name: 'Clickbooth', platform: 'own', click_id_param: 'subid2',
    postback: { click_id: '{subid2}', payout: '{payout}', tid: '{transid}' },
    doc_url: `${KINTURA}/clickadu/clickbooth`, verified: V, notes: '',
  },
  {
    id: 'adsup', name: 'Adsup', platform: 'own', click_id_param: 'aff_click_id',
    postback: { click_id: '{aff_click_id}', payout: '{payout}', tid: '{transaction_id}' },
    doc_url: `${KINTURA}/pinterest/adsup`, verified: V, notes: '',
  },
  {
    id: 'linktrust', name: 'LinkTrust', platform: 'linktrust', click_id_param: 'SID',
    postback: { click_id: '[=SID=]', payout: '[=AffiliateCommission=]', tid: '[=_TransID=]' },
    doc_url: `${KINTURA}/content.ad/linktrust`, verified: V, notes: 'Networks on the LinkTrust platform share these parameters.',
  },
  {
    id: 'clickpromise', name: 'ClickPromise', platform: 'own', click_id_param: 'SID',
    postback: { click_id: '[=SID=]', payout: '[=AffiliateCommission=]', tid: '[=_TransID=]' },
    doc_url: `${KINTURA}/rich-push.co/clickpromise`, verified: V, notes: '',
  },
  {
    id: 'traffic-company', name: 'Traffic Company', platform: 'own', click_id_param: 'click_id',
    postback: { click_id: '{click_id}', payout: '{reward}', tid: '{unique_id}' },
    doc_url: `${KINTURA}/advertizer/trafficcompany`, verified: V, notes: '',
  },
  {
    id: 'terra-leads', name: 'Terra Leads', platform: 'own', click_id_param: 'sub_id',
    postback: { click_id: '{sub_id}', payout: '{payment}' },
    doc_url: `${KINTURA}/decisive/terraleads`, verified: V, notes: '',
  },
  {
    id: 'm4trix', name: 'M4trix', platform: 'own', click_id_param: 'cid',
    postback: { click_id: '{cid}', payout: '{payout}', tid: '{orderid}' },
    doc_url: `${KINTURA}/ad-maven/m4trix`, verified: V, notes: '',
  },
  {
    id: 'cityads', name: 'CityAds', platform: 'own', click_id_param: 'sa',
    postback: { click_id: '{subaccount}', payout: '{payout}', status: '{status}' },
    doc_url: `${KINTURA}/taboola/cityads`, verified: V, notes: '',
  },
  {
    id: 'posh-partners', name: 'Posh Partners', platform: 'own', click_id_param: 'promo',
    postback: { click_id: '{transaction_id}', payout: '{amount}' },
    doc_url: 'https://posh-partners.com/faq/what-is-a-postback', verified: V,
    notes: 'A postback is set per event (registration, first deposit, deposit, CPA qualification): create one per event, with status=<your type> added by hand.',
  },
  {
    id: 'awin', name: 'Awin', platform: 'awin', click_id_param: 'clickref',
    postback: { click_id: '!!!clickRef!!!', payout: '!!!commission!!!' },
    doc_url: 'https://developer.awin.com/docs/request-types', verified: V,
    notes: 'Awin calls it Transaction Notifications (Toolbox > Transaction Notifications, enabled on request to Awin support), call-back method GET.',
  },
  {
    id: 'datacash', name: 'DataCash', platform: 'own', click_id_param: 's3',
    postback: { click_id: '{s3}', payout: '{money}', tid: '{tr_id}' },
    doc_url: 'https://data-cash.net/blog/index.php/2023/03/23/postback-url-setting/', verified: V,
    notes: 'DataCash asks for the click id in s3 of its directlink.',
  },
  {
    id: 'trackier', name: 'Trackier', platform: 'trackier', click_id_param: 'p1',
    postback: { click_id: '{p1}', payout: '{payout}', tid: '{txn_id}' },
    doc_url: 'https://trackier.freshdesk.com/support/solutions/articles/31000154963-parameter-for-tracking-link-and-postback-url-publisher-end', verified: V,
    notes: 'Networks on Trackier ask publishers for their click id in p1.',
  },
  {
    id: 'admitad', name: 'Admitad', platform: 'admitad', click_id_param: 'subid',
    postback: { click_id: '[[[subid]]]', payout: '[[[payment_sum]]]', tid: '[[[order_id]]]' },
    doc_url: 'https://developers.admitad.com/it/doc/api_en/methods/opt_codes/opt-codes-create-action/', verified: V,
    notes: 'Tools > Postback URL, event type Action. The SubID travels on the affiliate link (SubID-SubID4: support.mitgo.com, SubID in affiliate links). ' +
      '[[[payment_sum]]] is your earnings; [[[currency]]] names the program\'s currency.',
  },
  {
    id: 'dcm-network', name: 'DCM Network', platform: 'tune', click_id_param: 'aff_sub',
    postback: { click_id: '{aff_sub}', payout: '{payout}', tid: '{transaction_id}' },
    doc_url: 'https://support.dcmnetwork.com/hc/en-us/articles/360000945594-How-to-Add-Sub-ID-s-to-Affiliate-Tracking-Link-', verified: V,
    notes: 'Its tracking links are TUNE links (aff_c?offer_id=…&aff_id=…) with the sub ids aff_sub…aff_sub5; the postback macros are TUNE\'s (see the tune template).',
  },
  {
    id: 'scaleo', name: 'Scaleo', platform: 'scaleo', click_id_param: 'aff_click_id',
    postback: { click_id: '{aff_click_id}' },
    doc_url: 'https://help.scaleo.io/article/384-affiliate-parameters', verified: V,
    notes: 'The document shows the click id macro only: without a payout svc records the offer\'s payout; add &payout= with the network\'s payout macro if it has one.',
  },
]
