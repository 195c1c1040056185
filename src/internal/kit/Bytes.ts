/**
 * The request encoders' bytes helpers: images and documents arrive as bytes, base64 text or `data:`
 * URLs, and each provider wants one of those forms. Plain web APIs (`btoa`, `atob`, `TextDecoder`),
 * so the encoders run wherever Effect runs, not only on Node.
 *
 * @since 0.1.0
 */

/** Bytes as base64 text (built a slice at a time, so large files do not overflow the call stack). */
export const toBase64 = (bytes: Uint8Array): string => {
  let binary = ""
  const step = 0x8000
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode.apply(null, Array.from(bytes.subarray(i, i + step)))
  }
  return btoa(binary)
}

/** The base64 text of a `data:` URL (after its comma); any other text is taken to be base64 already. */
export const stripDataUrl = (data: string): string => {
  const comma = data.startsWith("data:") ? data.indexOf(",") : -1
  return comma === -1 ? data : data.slice(comma + 1)
}

/** Base64 text for bytes, base64 text (as it is) or a `data:` URL (its payload). */
export const base64Of = (data: string | Uint8Array): string =>
  typeof data === "string" ? stripDataUrl(data) : toBase64(data)

/** A `data:` URL for bytes or base64 text; a string that is already a `data:` URL passes as it is. */
export const dataUrl = (data: string | Uint8Array, mediaType: string): string =>
  typeof data === "string" && data.startsWith("data:") ? data : `data:${mediaType};base64,${base64Of(data)}`

/** The UTF-8 text of bytes, base64 text or a `data:` URL; text that is not base64 is taken as it is. */
export const utf8Of = (data: string | Uint8Array): string => {
  if (typeof data !== "string") return new TextDecoder().decode(data)
  let binary: string
  try {
    binary = atob(stripDataUrl(data))
  } catch {
    return data
  }
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return new TextDecoder().decode(bytes)
}
