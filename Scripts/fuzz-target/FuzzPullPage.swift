// libFuzzer target `pull-page`: the client's fast decoder of pull pages (PullPageDecoder.decode) against the
// general path the client falls back to (SyncConnection.receive: RPCClientCodec.parse, then
// RPCIncoming.decodeResult(as: PullResult.self)), on the input as one response line.
//
// Checked on every input (PullPageDecoder's documented contract):
// - when the fast path answers, the general path reads the same line as a response with the same id and a
//   PullResult equal to the fast one, byte for byte once written again (String equality is canonical
//   equivalence, which would hide a different encoding). The fast path may answer nil where the general
//   path succeeds (it leaves every unusual line to it), never the other way round;
// - a page the general path reads, written again by the daemon's encoder (RPCResponse.success), is read by
//   the general path to the same bytes and, if it holds expenses only, taken by the fast path too when it
//   answers a request the client numbered (an integer id): a daemon-written page must not fall back;
// - the line's announced cursor (PullPageDecoder.announcedCursor, the prefetcher's guess) is read without a
//   crash, and the general path's readers of every other result the client reads (hello, push, summary,
//   stats, history, cursor), of an error and of the `changed` notification do not crash.
// Built by Scripts/fuzz together with ExpenseCore, ExpenseProtocol and FuzzFailure.swift as one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = Array(UnsafeBufferPointer(start: data, count: size))
    _ = PullPageDecoder.announcedCursor(line)
    let fast = PullPageDecoder.decode(line)
    let general: GeneralReading
    do {
        let message = try RPCClientCodec.parse(line)
        readOtherResults(message)
        switch message {
        case .notification(let method, _):
            general = .refused("a notification (\(method))")
        case .response(let id, _):
            do { general = .page(id: id, try message.decodeResult(as: PullResult.self)) } catch {
                general = .refused("\(error)")
            }
        }
    } catch {
        general = .refused("\(error)")
    }
    if let fast {
        switch general {
        case .refused(let reason):
            fuzzFailure("the fast path took a page the general path refuses (\(reason))", input: line)
        case .page(let id, let page):
            fuzzCheck(id == fast.id, "the fast path read the id \(fast.id), the general path \(id.map { $0.description } ?? "null")",
                      input: line)
            fuzzCheck(page.jsonBytes == fast.result.jsonBytes && page == fast.result,
                      "the fast path and the general path read different pages", input: line)
        }
    }
    if case .page(let id, let page) = general {
        var written = RPCResponse.success(id: id, result: page)
        written.removeLast()  // the `\n`, as the line reader hands a line over
        let again = try? RPCClientCodec.parse(written).decodeResult(as: PullResult.self)
        fuzzCheck(again?.jsonBytes == page.jsonBytes, "a page written again by the daemon's encoder reads differently",
                  input: line)
        // As the daemon answers this client: the id echoed is one the client numbered (an integer; the fast path
        // leaves any other id to the general path, as documented).
        if page.dataChanges.isEmpty {
            var answer = RPCResponse.success(id: RequestID(7), result: page)
            answer.removeLast()
            let taken = PullPageDecoder.decode(answer)
            fuzzCheck(taken != nil, "the fast path refuses a page as the daemon writes it", input: line)
            fuzzCheck(taken?.id == RequestID(7) && taken?.result.jsonBytes == page.jsonBytes,
                      "the fast path reads a daemon-written page differently", input: line)
        }
    }
    return 0
}

/// What the general path makes of a line.
private enum GeneralReading {
    /// A response with this id and page.
    case page(id: RequestID?, PullResult)
    /// No pull page, and why.
    case refused(String)
}

/// The client's other readers of a response line: none may crash, whatever the line holds.
private func readOtherResults(_ message: RPCIncoming) {
    _ = try? message.decodeResult(as: HelloResult.self)
    _ = try? message.decodeResult(as: PushResult.self)
    _ = try? message.decodeResult(as: SummaryResult.self)
    _ = try? message.decodeResult(as: StatsResult.self)
    _ = try? message.decodeResult(as: HistoryResult.self)
    _ = try? message.decodeResult(as: CursorResult.self)
    if case .notification(ChangedNotification.method, let params) = message { _ = try? ChangedNotification(params: params) }
}
