// libFuzzer target `push`: the daemon's reading of a request line, fast paths against the general path, on
// the input as one line (without its `\n`).
//
// The fast side is what the daemon runs: RPCRequest.parseDecodingPush (a plain push read straight off the line
// by PushLineReader, every other line by RPCRequest.parse and its envelope fast path, RPCEnvelopeReader), then
// RPCRequest.pushRequest(). The general side is RPCRequest.parseGenerally (the whole line as a JSONValue) and,
// for a push, PushRequest(params:). On every input both must give, byte for byte:
// - the same failure (the whole error line the daemon would answer), or
// - the same request id and method and, for a push, the same whole-push error line or the same items: each
//   mutation written again (Mutation.write: id, type, baseVersion, kind, ifAbsent, every sent field) or the same
//   per-mutation refusal (reason, field, message); then each mutation validated as the ledger validates it
//   before any state is read (an expense put: ExpenseFields.draft and ExpenseValidator with the ledger's
//   defaults, as MutationRules.validateComplete; a budget, rule or setting: LedgerDataJSON.fields and
//   LedgerDataValidator) gives the same values or the same rejection on both sides;
// - for any other method, the same params, written again.
// Built by Scripts/fuzz together with ExpenseCore, ExpenseProtocol and FuzzFailure.swift as one module.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let line = Array(input)
    let fast = Reading(RPCRequest.parseDecodingPush(line[...])) { request throws(RPCError) in try request.pushRequest() }
    let general = Reading(RPCRequest.parseGenerally(input)) { request throws(RPCError) in try PushRequest(params: request.params) }
    if fast.bytes != general.bytes {
        fuzzFailure("the push fast path and the general path read the line differently:\nfast:    "
                    + String(decoding: fast.bytes.prefix(2000), as: UTF8.self) + "\ngeneral: "
                    + String(decoding: general.bytes.prefix(2000), as: UTF8.self), input: line)
    }
    return 0
}

/// What the daemon makes of one line, written out as bytes so that two readings compare exactly.
private struct Reading {
    var bytes: [UInt8] = []

    init(_ parsed: Result<RPCRequest, RPCRequestFailure>, push: (RPCRequest) throws(RPCError) -> PushRequest) {
        switch parsed {
        case .failure(let failure):
            append("failure ")
            bytes += failure.responseLine
        case .success(let request):
            var writer = JSONWriter()
            writer.requestID(request.id)
            append("id ")
            bytes += writer.bytes
            append("\nmethod ")
            bytes += Array(request.method.utf8)
            append("\n")
            guard request.method == PushRequest.method else {
                append("params ")
                bytes += request.params?.jsonBytes ?? Array("absent".utf8)
                return
            }
            do throws(RPCError) {
                add(try push(request))
            } catch {
                append("push error ")
                bytes += RPCResponse.error(id: nil, error)
            }
        }
    }

    private mutating func append(_ text: String) { bytes += Array(text.utf8) }

    private mutating func add(_ push: PushRequest) {
        for item in push.items {
            append("item \(item.mutationId) ")
            switch item.decoded {
            case .failure(let rejection):
                add(rejection)
            case .success(let mutation):
                var writer = JSONWriter()
                mutation.write(to: &writer)
                bytes += writer.bytes
                append("\n  validated ")
                addValidation(of: mutation)
            }
            append("\n")
        }
    }

    private mutating func add(_ rejection: MutationRejection) {
        append("rejected \(rejection.reason) field ")
        bytes += Array((rejection.field ?? "(none)").utf8)
        append(" message ")
        bytes += Array(rejection.message.utf8)
    }

    /// What the ledger's rules make of the mutation's values before reading any state.
    private mutating func addValidation(of mutation: Mutation) {
        guard mutation.type == .put else {
            append("(a delete)")
            return
        }
        guard mutation.kind == .expense else {
            guard let fields = mutation.fields else { return add(.putWithoutFields) }
            switch LedgerDataJSON.fields(fields) {
            case .failure(let rejection): add(rejection)
            case .success(let converted):
                do throws(LedgerDataError) {
                    let stored = try LedgerDataValidator.validate(kind: mutation.kind, id: mutation.id, fields: converted)
                    var writer = JSONWriter()
                    writer.value(.object(stored.mapValues(LedgerDataJSON.json)))
                    bytes += writer.bytes
                } catch {
                    add(MutationRejection(reason: error.code, field: error.field, message: error.message))
                }
            }
            return
        }
        // MutationRules.validateComplete with a ledger in USD: the sent fields, the ledger's currency when none
        // is sent, an empty note.
        guard let sent = mutation.sentFields else { return add(.putWithoutFields) }
        switch ExpenseFields.draft(from: sent) {
        case .failure(let rejection): add(rejection)
        case .success(var draft):
            draft.id = nil
            if draft.currency == nil { draft.currency = "USD" }
            if draft.note == nil { draft.note = "" }
            do {
                let expense = try ExpenseValidator.validate(draft, id: mutation.id)
                append("\(expense.idString) \(expense.amount) \(expense.currency.code) \(expense.date) ")
                bytes += Array(expense.category.utf8) + [0] + Array(expense.note.utf8)
            } catch let error as ValidationError {
                add(MutationRejection(error))
            } catch {
                append("other error \(error)")
            }
        }
    }
}
