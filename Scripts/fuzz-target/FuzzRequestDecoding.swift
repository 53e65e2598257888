// libFuzzer target `request`: the daemon's input path: line framing (LineFramer, fed in fuzzer-chosen chunks),
// request decoding (RPCRequest.parse, each method's params), a push's fields through the core's validator,
// and the error line answered for a bad request. RPCRequest.parse's envelope fast path (RPCEnvelopeReader) is
// also compared with the general reader (RPCRequest.parseGenerally): the same id, method and params (written
// again, byte for byte) or the same error line. Built by Scripts/fuzz together with the sources of
// ExpenseCore, ExpenseProtocol, LineFramer and FuzzFailure.swift as one module (so all of them are instrumented).
// A crash, a trap (overflow, out-of-bounds), an ASan report or a broken invariant below is a finding.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let first = input.first else { return 0 }
    // First byte: the line limit (64 … 4,144 bytes) and the chunk size used to feed the framer.
    let maximum = 64 + Int(first) * 16
    let chunk = 1 + Int(first % 37)
    var framer = LineFramer(maximumLineLength: maximum)
    var offset = 1
    while offset < input.count {
        let end = min(offset + chunk, input.count)
        framer.append(contentsOf: input[offset..<end])
        offset = end
        while let next = framer.nextLine() {
            switch next {
            case .tooLong:
                return 0  // the daemon answers −32002 and closes: nothing more is read
            case .line(let line):
                precondition(line.count <= maximum, "a line longer than the limit was framed")
                precondition(!line.contains(0x0A), "a framed line contains a newline")
                decode(line)
            }
        }
    }
    return 0
}

private func decode(_ line: ArraySlice<UInt8>) {
    let parsed = RPCRequest.parse(line)
    let general = line.withUnsafeBufferPointer { RPCRequest.parseGenerally($0) }
    fuzzCheck(written(parsed) == written(general), "the envelope fast path and the general reader disagree", input: line)
    switch parsed {
    case .failure(let failure):
        let answer = failure.responseLine
        precondition(answer.last == 0x0A && !answer.dropLast().contains(0x0A), "an error answer is not one line")
    case .success(let request):
        switch request.method {
        case "hello": _ = try? HelloRequest(params: request.params)
        case "pull": _ = try? PullRequest(params: request.params)
        case "summary": _ = try? SummaryRequest(params: request.params)
        case "ping": _ = try? PingRequest(params: request.params)
        case "push":
            guard let push = try? PushRequest(params: request.params) else { return }
            for item in push.items {
                guard case .success(let mutation) = item.decoded, let fields = mutation.fields else { continue }
                if case .success(let draft) = ExpenseFields.draft(from: fields) {
                    _ = try? ExpenseValidator.validate(draft)
                }
            }
        default: break
        }
    }
}

/// A parse written out as bytes: the error line answered, or the id, method and params written again.
private func written(_ parsed: Result<RPCRequest, RPCRequestFailure>) -> [UInt8] {
    switch parsed {
    case .failure(let failure):
        return failure.responseLine
    case .success(let request):
        var writer = JSONWriter()
        writer.requestID(request.id)
        writer.string(request.method)
        if let params = request.params { writer.value(params) } else { writer.raw("absent") }
        return writer.bytes
    }
}
