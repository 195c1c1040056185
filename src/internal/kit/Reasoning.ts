/**
 * The decoder kit's reasoning runs. A run is one stretch of reasoning between other output: its
 * deltas go out as `reasoning-delta` chunks whose `accumulated` is the response's reasoning so far,
 * and closing it emits one `reasoning` chunk with the run's text and what must be sent back on the
 * next turn (a signature, or redacted / encrypted data).
 *
 * @since 0.1.0
 */
import * as StreamChunk from "../../StreamChunk.js"
import type { Emitter, Out } from "./Emitter.js"

/** The reasoning of one response, as runs opened, appended to and closed by the decoder. */
export class Reasoning {
  /** This response's reasoning so far, across runs (the protocol's `accumulated`). */
  accumulated = ""
  /** A run is open: the next {@link Reasoning.close} emits a `reasoning` chunk. */
  isOpen = false
  private start = 0
  private signature: string | undefined = undefined
  private redacted: string | undefined = undefined

  constructor(private readonly emitter: Emitter) {}

  /** Opens a run (a no-op when one is open): for a block that may end with no text, only a signature. */
  open(): void {
    if (this.isOpen) return
    this.isOpen = true
    this.start = this.accumulated.length
  }

  /** Appends reasoning text to the open run (opening one) and emits its `reasoning-delta`. */
  delta(out: Out, text: string): void {
    this.open()
    this.accumulated += text
    this.emitter.emit(out, StreamChunk.reasoningDelta(text, this.accumulated))
  }

  /** Sets the open run's signature (opening one); the last one given wins. */
  sign(signature: string): void {
    this.open()
    this.signature = signature
  }

  /**
   * Gives the run opaque data to send back verbatim (redacted thinking, encrypted content). Each
   * block must go back as it came, so a second one closes the run that holds the first.
   */
  redact(out: Out, data: string): void {
    if (this.redacted !== undefined) this.close(out)
    this.open()
    this.redacted = data
  }

  /** Closes the open run, emitting its `reasoning` chunk; a no-op when none is open. */
  close(out: Out): void {
    if (!this.isOpen) return
    this.isOpen = false
    this.emitter.emit(
      out,
      StreamChunk.reasoning(this.accumulated.slice(this.start), { signature: this.signature, redacted: this.redacted })
    )
    this.signature = undefined
    this.redacted = undefined
  }
}
