import type { OraclePlugin } from './agent/plugin.js';
import type { RouteSpec } from '../http/router.js';
import { ucanGuarded, type OracleAuth } from './oracle-auth.js';

/** A plugin's routes: behind the UCAN check, but those it lists as auth-excluded. */
export function pluginRoutes(plugin: OraclePlugin, auth: OracleAuth | undefined): RouteSpec[] {
  const open = new Set(plugin.authExcludedRoutes ?? []);
  return (plugin.routes ?? []).map((r) => {
    const excluded = open.has(`${r.method} ${r.path}`);
    return {
      method: r.method,
      path: r.path,
      doc: { ...r.doc, tag: r.doc.tag || plugin.name, ...(excluded ? { public: true } : {}) },
      handler: excluded ? (ctx) => r.handler(ctx, undefined) : ucanGuarded(auth, (ctx, who) => r.handler(ctx, who)),
    };
  });
}
