import { modelCatalogSchema, type ModelCatalog } from './agent/models.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';

/**
 * `GET /models`: the models a message may name, in the reference runtime's shape
 * (`{models: [{id, label, family, vision, isDefault}], default}`). Public, as there: ixo's
 * SDK (`useModels`) asks before the user has signed anything.
 */
export function modelsRoute(catalog: ModelCatalog): RouteSpec {
  return {
    method: 'GET',
    path: '/models',
    usesDatabase: false,
    doc: {
      operationId: 'listModels',
      summary: 'The language models a message may ask for, and the default',
      tag: 'oracle',
      public: true,
      responses: { 200: 'The models, the default first' },
      responseBody: modelCatalogSchema,
    },
    handler: () => json(200, catalog),
  };
}
