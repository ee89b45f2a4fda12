// The Postgres tables (issue 8), built from the one definition of each table in ../schema (see ../table.ts for the
// rules and what only one engine has). drizzle.pg.config.ts reads this module; drizzle-kit and move-to-pg.ts
// want each table as a named export, hence the list (test/db/schema-matches.test.ts fails on a table left out).
import * as sqlite from '../schema'
import { toPg } from '../table'

export const {
  users, settings, sources, offers, landings, campaigns, campaignOffers, campaignLandings, ruleSets, campaignPaths, pathOffers, pathLandings, clicks,
  conversionTypes, statusMap, conversions, postbackErrors, conversionStatusHistory, jobs,
  clickStatsHourly, conversionStatsHourly, clickStatsDaily, conversionStatsDaily,
  clickCountryHourly, clickCountryDaily, clickPathHourly, clickPathDaily,
  conversionCountryHourly, conversionCountryDaily, conversionPathHourly, conversionPathDaily, clickCountryTotalDaily, conversionCountryTotalDaily, rollupMarks,
  emailLists, emailSubscribers, emailOutbox, emailTriggers, emailAutomations, customers, customerLoginTokens,
  mailEvents, mailWebhookTokens, leads, visitorEvents, landingAssets,
  webhookEvents, orders, paymentAccounts, products, refunds, subscriptions,
  agentTokens, agentAudit, agentConfirmations, costUpdates,
  autoWeightConfigs, weightChanges, capCounters, customTemplates, blockedZones, savedViews,
} = toPg(sqlite)
