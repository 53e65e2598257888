// Compiled into every libFuzzer target by Scripts/fuzz (it is no target itself): how a target reports a
// finding. A broken invariant or a disagreement between a fast path and its general path prints what went
// wrong and the input, then traps; libFuzzer treats the trap as a crash and writes the input to
// .build/fuzz/<target>/crash-*.
//
// `precondition` would trap too, but an -O build drops its message; a finding has to say what it is.

#if canImport(Glibc)
import Glibc
#endif

/// Prints `message` and `input` (escaped, at most 4,096 bytes shown) to standard error, then traps.
func fuzzFailure(_ message: String, input: some Collection<UInt8>) -> Never {
    var text = "fuzz finding: \(message)\ninput (\(input.count) bytes): \""
    for byte in input.prefix(4096) {
        switch byte {
        case UInt8(ascii: "\""): text += "\\\""
        case UInt8(ascii: "\\"): text += "\\\\"
        case 0x0A: text += "\\n"
        case 0x0D: text += "\\r"
        case 0x09: text += "\\t"
        case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = String(byte, radix: 16)
            text += "\\x" + (hex.count == 1 ? "0" : "") + hex
        }
    }
    text += input.count > 4096 ? "\"…\n" : "\"\n"
    fputs(text, stderr)
    fatalError(message)
}

/// Traps through ``fuzzFailure(_:input:)`` unless `condition` holds.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String, input: some Collection<UInt8>) {
    if !condition { fuzzFailure(message(), input: input) }
}
