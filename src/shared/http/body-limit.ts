/** Larger request bodies are refused with 413 before they are read to the end. */
export const BODY_LIMIT = 64 * 1024;
