/** Posts USSD requests the way aggregators do: JSON (the spec) or form-encoded (Africa's Talking). */
export function ussdClient(base: string) {
  const post = async (
    body: Record<string, string>,
    form = false,
  ): Promise<{ status: number; text: string; type: string | null }> => {
    const res = await fetch(`${base}/api/ussd`, {
      method: 'POST',
      headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
      body: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
  };
  return {
    post,
    /** A session: each `send` appends one input to the cumulative text, as the phone would. */
    session(sessionId: string, phoneNumber: string, opts: { form?: boolean; serviceCode?: string } = {}) {
      const inputs: string[] = [];
      const request = (text: string) =>
        post(
          {
            sessionId,
            phoneNumber,
            serviceCode: opts.serviceCode ?? '*1234#',
            text,
            ...(opts.form ? { networkCode: '64501' } : {}),
          },
          opts.form,
        );
      return {
        start: async () => (await request('')).text,
        send: async (input: string) => {
          inputs.push(input);
          return (await request(inputs.join('*'))).text;
        },
        /** The text as the aggregator would send it now (for replays and dial-through). */
        text: () => inputs.join('*'),
        raw: request,
      };
    },
  };
}
