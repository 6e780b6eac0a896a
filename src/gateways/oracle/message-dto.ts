import { z } from 'zod';

const attachment = z
  .object({
    mxcUri: z
      .string()
      .regex(/^(mxc|https?):\/\/\S+$/, 'must be an mxc://, http:// or https:// URI')
      .max(2_048)
      .optional(),
    eventId: z
      .string()
      .regex(/^\$\S+$/, 'must start with $')
      .max(512)
      .optional(),
    filename: z.string().min(1).max(255),
    mimetype: z.string().min(1).max(255),
  })
  .strict()
  .refine((a) => a.mxcUri !== undefined || a.eventId !== undefined, 'needs mxcUri or eventId');

const declaration = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(4_000).optional(),
  schema: z.unknown(),
});

/** SendMessageDto (spec 001), strict: an unknown field is a 400, as the wire reference says. */
export const sendMessageBody = z
  .object({
    message: z.string().min(1).max(100_000),
    stream: z.boolean().default(false),
    returnAllMessages: z.boolean().default(false),
    tools: z.array(declaration.strict()).max(100).optional(),
    agActions: z
      .array(declaration.extend({ hasRender: z.boolean().optional() }).strict())
      .max(100)
      .optional(),
    attachments: z.array(attachment).max(10, 'at most 10 attachments').optional(),
    mcpInvocations: z.record(z.string().max(200), z.string().max(64 * 1024)).optional(),
    timezone: z.string().max(64).optional(),
    /**
     * A model id of `GET /models` (ixo's SDK sends it from `useChat({ model })`). One the
     * deployment does not offer is ignored (the default answers), as the reference runtime does.
     */
    model: z.string().max(200).optional(),
    homeServer: z.string().max(512).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const abortBody = z.object({ sessionId: z.string().min(1).max(128) }).strict();
