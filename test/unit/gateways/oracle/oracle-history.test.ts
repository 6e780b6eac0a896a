import { describe, expect, it } from 'vitest';
import { historyWithin, type TranscriptEntry } from '../../../../src/gateways/oracle/agent/history.js';

const human = (content: string): TranscriptEntry => ({ type: 'human', content });
const ai = (content: string, toolCalls?: TranscriptEntry['toolCalls']): TranscriptEntry => ({
  type: 'ai',
  content,
  ...(toolCalls ? { toolCalls } : {}),
});

describe('historyWithin: the conversation an agent is given', () => {
  const transcript = [
    human('My name is Zanele'), // 17
    ai('Nice to meet you'), // 16
    human('Show my vouchers'), // 16
    ai('You have 1 voucher', [{ name: 'my_vouchers', id: 'c1', args: {}, output: [{ id: 'v1' }] }]),
    human('Thanks'),
    ai('You are welcome'),
  ];

  it('keeps every message when the budget allows, tool results as text beside their call', () => {
    const { messages, omitted } = historyWithin(transcript, 10_000);
    expect(omitted).toBe(0);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(messages[3]).toEqual({
      role: 'assistant',
      content: 'You have 1 voucher',
      toolCalls: [{ id: 'c1', name: 'my_vouchers', args: {}, output: '[{"id":"v1"}]' }],
    });
  });

  it('leaves out the oldest whole turns first, never half a turn', () => {
    // The last turn costs 6 + 15 = 21; the one before 16 + 18 + the tool call (11 + 2 + 13).
    const lastOnly = historyWithin(transcript, 40);
    expect(lastOnly.messages.map((m) => m.content)).toEqual(['Thanks', 'You are welcome']);
    expect(lastOnly.omitted).toBe(4);
    const lastTwo = historyWithin(transcript, 21 + 16 + 18 + 26);
    expect(lastTwo.messages.map((m) => m.content)).toEqual([
      'Show my vouchers',
      'You have 1 voucher',
      'Thanks',
      'You are welcome',
    ]);
    // One character less and the tool-calling turn goes whole, with its call and result.
    expect(historyWithin(transcript, 21 + 16 + 18 + 25).messages).toHaveLength(2);
  });

  it('gives nothing with a budget of 0, and keeps a session that opens with an answer as one turn', () => {
    expect(historyWithin(transcript, 0)).toEqual({ messages: [], omitted: 6 });
    const opened = historyWithin([ai('Welcome'), human('Hi')], 100);
    expect(opened.messages.map((m) => m.role)).toEqual(['assistant', 'user']);
  });
});

describe('historyWithin on the last messages of a longer transcript', () => {
  it('starts at a user message and counts every message left out', () => {
    // The window opens on the answer of a turn whose question was cut off.
    const window = [ai('…and that is all'), human('Thanks'), ai('You are welcome')];
    const { messages, omitted } = historyWithin(window, 10_000, 203);
    expect(messages.map((m) => m.content)).toEqual(['Thanks', 'You are welcome']);
    expect(omitted).toBe(201);
  });
});
