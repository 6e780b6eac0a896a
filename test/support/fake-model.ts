/** An OpenAI-compatible model on 127.0.0.1 (shared with the benchmark). */
export { fakeModel, slowWords, type FakeModel, type ModelRequest } from '../../bench/lib/fake-model.js';
