/** The gateway's TypeScript client (docs/client.md). */
export const CLIENT_NAME = '@gateway/client';
