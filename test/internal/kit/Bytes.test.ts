/** The encoders' bytes helpers: exact base64 (large inputs too), data URLs, UTF-8 text back. */
import { describe, expect, it } from "vitest"
import * as Bytes from "../../../src/internal/kit/Bytes.js"

describe("Bytes", () => {
  it("toBase64 matches Node's encoding, for inputs larger than one slice", () => {
    const bytes = new Uint8Array(100_003)
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) & 0xff
    expect(Bytes.toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"))
    expect(Bytes.toBase64(new Uint8Array([]))).toBe("")
    expect(Bytes.toBase64(new Uint8Array([0xff, 0x00, 0x80]))).toBe("/wCA")
  })

  it("base64Of takes bytes, base64 text as it is, and a data URL's payload", () => {
    expect(Bytes.base64Of(new TextEncoder().encode("hi"))).toBe("aGk=")
    expect(Bytes.base64Of("aGk=")).toBe("aGk=")
    expect(Bytes.base64Of("data:text/plain;base64,aGk=")).toBe("aGk=")
  })

  it("dataUrl wraps bytes and base64, and passes a data URL as it is", () => {
    expect(Bytes.dataUrl(new TextEncoder().encode("hi"), "text/plain")).toBe("data:text/plain;base64,aGk=")
    expect(Bytes.dataUrl("aGk=", "image/png")).toBe("data:image/png;base64,aGk=")
    expect(Bytes.dataUrl("data:image/jpeg;base64,AAAA", "image/png")).toBe("data:image/jpeg;base64,AAAA")
  })

  it("utf8Of reads bytes, base64 and data URLs as UTF-8; text that is not base64 stays as it is", () => {
    expect(Bytes.utf8Of(new TextEncoder().encode("héllo ✓"))).toBe("héllo ✓")
    expect(Bytes.utf8Of(Buffer.from("héllo ✓").toString("base64"))).toBe("héllo ✓")
    expect(Bytes.utf8Of(`data:text/plain;base64,${Buffer.from("doc").toString("base64")}`)).toBe("doc")
    expect(Bytes.utf8Of("not base64 at all!")).toBe("not base64 at all!")
  })
})
