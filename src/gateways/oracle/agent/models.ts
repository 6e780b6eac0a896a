import { z } from 'zod';
import type { Config } from '../../../config.js';

/** The embedded agent's id in `GET /models`: no language model behind it. */
const EMBEDDED_MODEL = 'hearth-embedded';

/**
 * A model as `GET /models` lists it: the reference runtime's fields that hearth can fill
 * truthfully. Its catalogue also has prices, tiers and blurbs; hearth knows no prices of the
 * provider behind LLM_BASE_URL, so it leaves them out rather than invent them.
 */
interface ModelListing {
  id: string;
  label: string;
  family: string;
  vision: boolean;
  isDefault: boolean;
}

/** What `GET /models` answers: the catalogue as it is. */
export const modelCatalogSchema = z.strictObject({
  models: z.array(
    z.strictObject({
      id: z.string(),
      label: z.string(),
      family: z.string(),
      vision: z.boolean(),
      isDefault: z.boolean(),
    }),
  ),
  default: z.string(),
}) satisfies z.ZodType<ModelCatalog>;

export interface ModelCatalog {
  models: ModelListing[];
  /** The model a message without `model` (or with one not listed) is answered by. */
  default: string;
}

/** The models this deployment offers: LLM_MODEL first (the default), then LLM_MODELS. */
export function modelCatalog(config: Pick<Config, 'LLM_BASE_URL' | 'LLM_MODEL' | 'LLM_MODELS'>): ModelCatalog {
  if (!config.LLM_BASE_URL) {
    return {
      models: [
        {
          id: EMBEDDED_MODEL,
          label: 'hearth (embedded agent)',
          family: 'hearth',
          vision: false,
          isDefault: true,
        },
      ],
      default: EMBEDDED_MODEL,
    };
  }
  const ids = [...new Set([config.LLM_MODEL, ...config.LLM_MODELS])];
  return {
    models: ids.map((id) => ({
      id,
      label: id,
      family: id.includes('/') ? id.slice(0, id.indexOf('/')) : 'openai-compatible',
      vision: false,
      isDefault: id === config.LLM_MODEL,
    })),
    default: config.LLM_MODEL,
  };
}

/** The model a message asked for when the deployment offers it; otherwise none (the default answers). */
export function chosenModel(catalog: ModelCatalog, asked: string | undefined): string | undefined {
  return asked !== undefined && catalog.models.some((m) => m.id === asked) ? asked : undefined;
}
