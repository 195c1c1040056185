/**
 * Output items of tools the host runs itself (web search, file search, code interpreter, MCP, image
 * generation) and text annotations, as `ContentPart`s. Values kept whole from the wire (a search
 * action, an MCP output) are checked once here, where they are kept: too deep or holding a non-finite
 * number, they are kept as their JSON text instead.
 *
 * @since 0.1.0
 */
import type * as ContentPart from "../../ContentPart.js"
import * as Json from "../../internal/json.js"
import * as Guards from "../../internal/kit/guards.js"
import type * as Events from "./events.js"

type Item = Guards.Unchecked<Events.OutputItem>
type Part = ContentPart.ContentPart
type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type ProviderTool = Mutable<typeof ContentPart.ProviderTool.Type>

/** The tool name each provider-executed item type reports. */
const toolNames: ReadonlyMap<string, string> = new Map([
  ["web_search_call", "web_search"],
  ["file_search_call", "file_search"],
  ["code_interpreter_call", "code_interpreter"]
])

/** A value from the wire, kept whole when it always serializes, else as its JSON text. */
const keep = (value: unknown): unknown => (Json.check(value) === undefined ? value : Json.stringify(value))

/** An object of the defined fields only (the protocol never carries `undefined`). */
const defined = (fields: Record<string, unknown>): { [key: string]: unknown } => {
  const out: { [key: string]: unknown } = {}
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) out[k] = keep(v)
  return out
}

const str = (u: unknown): string | undefined => (Guards.isNonEmptyString(u) ? u : undefined)

/** MCP arguments arrive as JSON text: decoded when they parse, kept as text otherwise. */
const parsed = (text: unknown): unknown => {
  if (typeof text !== "string") return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

const call = (id: string, name: string, input: unknown, metadata?: { [key: string]: unknown }): ProviderTool => {
  const part: ProviderTool = { type: "provider-tool", kind: "call", id, name }
  if (input !== undefined) part.input = keep(input)
  if (metadata !== undefined) part.providerMetadata = metadata
  return part
}

const result = (id: string, name: string, output: unknown, isError: boolean): ProviderTool => {
  const part: ProviderTool = { type: "provider-tool", kind: "result", id, name }
  if (output !== undefined) part.output = keep(output)
  if (isError) part.isError = true
  return part
}

/** The parts of a finished provider-executed tool item: its call and its result; none for other items. */
export const parts = (item: Item): Array<Part> => {
  const type = typeof item.type === "string" ? item.type : ""
  const id = str(item.id) ?? ""
  const failed = item.status === "failed"
  switch (type) {
    case "web_search_call": {
      // What was searched is the call; the pages it found (`action.sources`) are its result.
      const { sources, ...action } = Guards.isObject<{ sources: unknown }>(item.action) ? item.action : {}
      const name = toolNames.get(type) ?? type
      return [
        call(id, name, action),
        result(id, name, defined({ status: item.status, sources }), failed)
      ]
    }
    case "file_search_call": {
      const name = toolNames.get(type) ?? type
      return [
        call(id, name, defined({ queries: item.queries })),
        result(id, name, defined({ status: item.status, results: item.results }), failed)
      ]
    }
    case "code_interpreter_call": {
      const name = toolNames.get(type) ?? type
      return [
        call(id, name, defined({ code: item.code, containerId: item.container_id })),
        result(id, name, defined({ status: item.status, outputs: item.outputs }), failed)
      ]
    }
    case "mcp_call": {
      const name = str(item.name) ?? "mcp"
      const metadata = defined({ serverLabel: item.server_label })
      const error = item.error !== undefined && item.error !== null
      return [
        call(id, name, parsed(item.arguments), metadata),
        { ...result(id, name, error ? item.error : item.output, error || failed), providerMetadata: metadata }
      ]
    }
    case "mcp_approval_request":
      // The host waits for an `mcp_approval_response` naming this id before it runs the tool.
      return [
        call(
          id,
          str(item.name) ?? "mcp",
          parsed(item.arguments),
          defined({
            serverLabel: item.server_label,
            approvalRequest: true
          })
        )
      ]
    default:
      return []
  }
}

/** The final image of an `image_generation_call` item. */
export const image = (item: Item): Part | undefined => {
  const data = str(item.result)
  if (data === undefined) return undefined
  return {
    type: "image",
    mediaType: `image/${str(item.output_format) ?? "png"}`,
    data,
    providerMetadata: defined({
      itemId: str(item.id),
      revisedPrompt: str(item.revised_prompt),
      size: str(item.size),
      quality: str(item.quality),
      background: str(item.background)
    })
  }
}

/** A preview of an image still being generated (a stream-only part). */
export const partialImage = (e: Guards.Unchecked<Events.EventFields>): Part | undefined => {
  const data = str(e.partial_image_b64)
  if (data === undefined) return undefined
  return {
    type: "image",
    mediaType: `image/${str(e.output_format) ?? "png"}`,
    data,
    providerMetadata: defined({
      itemId: str(e.item_id),
      partialImageIndex: typeof e.partial_image_index === "number" ? e.partial_image_index : undefined
    })
  }
}

/** A text annotation as a source: a URL citation, or a cited file by id. */
export const source = (annotation: unknown): Extract<Part, { type: "source" }> | undefined => {
  if (!Guards.isObject<Events.Annotation>(annotation)) return undefined
  if (annotation.type === "url_citation") {
    const url = str(annotation.url)
    if (url === undefined) return undefined
    const title = str(annotation.title)
    return title === undefined ? { type: "source", sourceType: "url", url } : {
      type: "source",
      sourceType: "url",
      url,
      title
    }
  }
  const id = str(annotation.file_id)
  if (id === undefined) return undefined
  const title = str(annotation.filename)
  return title === undefined
    ? { type: "source", sourceType: "document", id }
    : { type: "source", sourceType: "document", id, title }
}
