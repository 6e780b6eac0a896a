import type { Config } from '../../../config.js';
import type { Agent } from './agent.js';
import { embeddedAgent } from './embedded-agent.js';
import { openAiAgent } from './openai-agent.js';
import type { OracleTool } from './tools.js';

/** The configured agent: an OpenAI-compatible provider when LLM_BASE_URL is set, else the embedded one. */
export function agentFor(config: Config, tools: readonly OracleTool[]): Agent {
  if (!config.LLM_BASE_URL) return embeddedAgent(tools);
  return openAiAgent({ baseUrl: config.LLM_BASE_URL, apiKey: config.LLM_API_KEY, model: config.LLM_MODEL, tools });
}
