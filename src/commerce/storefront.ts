// /storefront.js: the script a merchant adds to the ecom-a store's theme (README). Embedded in the binary
// as text, served like the landing scripts (Cache-Control, strong ETag, 304).
// @ts-ignore: a text import (a string); TypeScript does not know import attributes change the type.
import storefrontSource from './storefront.js' with { type: 'text' }
import type { NativeRoutes } from '../context'
import { staticScriptRoutes } from '../http/static-scripts'

export const STOREFRONT_SOURCE = storefrontSource as string

export function storefrontRoutes(): NativeRoutes {
  return staticScriptRoutes({ '/storefront.js': STOREFRONT_SOURCE })
}
