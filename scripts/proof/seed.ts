// Seeds one campaign through the admin API: a source whose postback URL is `postbackTemplate`, an
// offer whose URL carries {click_id} (so the client reads it from the 302), and a campaign `slug`.
import type { Svc } from './svc'

export async function seedCampaign(svc: Svc, slug: string, postbackTemplate: string | null): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const r = await svc.api('POST', path, body)
    if (r.status !== 201) throw new Error(`seed: POST ${path} → ${r.status} ${JSON.stringify(r.body)}`)
    return r.body as { id: number }
  }
  const source = await post('/admin/api/sources', { name: `${slug} source`, postback_url: postbackTemplate })
  const offer = await post('/admin/api/offers', {
    name: `${slug} offer`,
    slug: `${slug}-offer`,
    url: 'https://offer.example/land?cid={click_id}&s1={sub1}&src={source_id}',
    payout: 2,
  })
  await post('/admin/api/campaigns', { name: slug, slug, source_id: source.id, offer_id: offer.id, external_id: `${slug}-ext` })
}
