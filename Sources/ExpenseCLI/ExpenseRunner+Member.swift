import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// `expense member add NAME`: prints the new member's id.
    func memberAdd() throws {
        let ledger = try ledger()
        let name = try LedgerDataValidator.memberName(command[ExpenseArguments.memberName] ?? "")
        let data = try LedgerDataCache(store: ledger.store)
        try Self.checkNameFree(name, among: Self.members(data), except: nil)
        // The id derived from the name, so that the same person added on two machines offline is one member.
        let derived = Member.id(named: name)
        let member = Member(id: try data.record(id: derived) == nil ? derived : UUID(), name: name)
        try ledger.put(.member, id: member.id, fields: member.fields)
        console.out(UUIDText.lowercased(member.id) + "\n")
    }

    /// `expense member list [--json]`: every member by name, those who left marked.
    func memberList() throws {
        let ledger = try ledger(readOnly: true)
        let members = try Self.members(LedgerDataCache(store: ledger.store))
        if command[ExpenseOptions.json] {
            console.out(JSONWriter.prettyText(.array(members.map { member in
                .object(["id": .string(UUIDText.lowercased(member.id)), "name": .string(member.name),
                         "status": .string(member.status.rawValue)])
            })))
            return
        }
        guard !members.isEmpty else { return console.err("No members; add one with `expense member add NAME`.") }
        for member in members {
            console.out(DisplayText.escaped(member.name) + (member.isActive ? "" : "  (left)") + "\n")
        }
    }

    /// `expense member rename NAME NEW`.
    func memberRename() throws {
        let ledger = try ledger()
        let members = try Self.members(LedgerDataCache(store: ledger.store))
        var member = try Self.member(named: command[ExpenseArguments.memberName] ?? "", in: members)
        let new = try LedgerDataValidator.memberName(command[ExpenseArguments.newMemberName] ?? "")
        try Self.checkNameFree(new, among: members, except: member.id)
        member.name = new
        try ledger.put(.member, id: member.id, fields: member.fields)
        console.err("Renamed to \(DisplayText.quoted(new)).")
    }

    /// `expense member leave NAME`.
    func memberLeave() throws {
        let ledger = try ledger()
        var member = try Self.member(named: command[ExpenseArguments.memberName] ?? "", in: Self.members(LedgerDataCache(store: ledger.store)))
        guard member.isActive else { return console.err("\(DisplayText.quoted(member.name)) has already left.") }
        member.status = .left
        try ledger.put(.member, id: member.id, fields: member.fields)
        console.err("\(DisplayText.quoted(member.name)) has left: kept in past splits and balances, not offered for new ones.")
    }

    /// `expense config set me NAME`: who pays by default on this machine (a local setting, not synced).
    func setMe(_ name: String) throws {
        let ledger = try ledger()
        let member = try Self.member(named: name, in: Self.members(LedgerDataCache(store: ledger.store)))
        guard member.isActive else {
            throw CommandFailure(.dataError, "Error: member_left: \(DisplayText.quoted(member.name)) has left the ledger")
        }
        try ledger.store.setMetaValue(UUIDText.lowercased(member.id), for: .me)
    }

    /// The name of the member `config set me` chose, `nil` when none was (or that member is gone).
    func meName(_ ledger: LocalLedger) throws -> String? {
        guard let id = try ledger.store.metaValue(.me).flatMap(UUIDText.parse) else { return nil }
        return try? Self.members(LedgerDataCache(store: ledger.store)).first { $0.id == id }?.name
    }

    /// The members `--paid-by` and `--split` name, and `me`; none on a cache that keeps no members (the JSON file).
    func memberNames(_ ledger: LocalLedger) throws -> MemberNames {
        var members: [Member] = []
        if let data = try? LedgerDataCache(store: ledger.store) { members = try Self.members(data) }
        return MemberNames(members: members, me: try ledger.store.metaValue(.me).flatMap(UUIDText.parse))
    }

    /// The member `--member NAME` names (one who left included), `nil` without it; refused with `--server`, which
    /// the daemon answers for the whole ledger only.
    func chosenMember(_ ledger: LocalLedger) throws -> UUID? {
        guard let name = try command.value(ExpenseOptions.member) else { return nil }
        if command.declares(ExpenseOptions.server.spec), command[ExpenseOptions.server] {
            throw usage("--member is counted from the local copy; leave out --server")
        }
        return try memberNames(ledger).anyMember(name)
    }

    /// `member`'s part of each local expense `filter` covers, in date order.
    func memberParts(_ ledger: LocalLedger, _ member: UUID, _ filter: ExpenseFilter) throws -> [Expense] {
        var parts: [Expense] = []
        try ledger.forEach(filter) { expense in
            if let part = expense.part(of: member) { parts.append(part) }
        }
        return parts
    }

    /// The ledger's members (those who left included), by name's bytes.
    static func members(_ data: LedgerDataCache) throws -> [Member] {
        try data.records(.member).compactMap { try? LedgerDataValidator.member(id: $0.id, fields: $0.fields) }
            .sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
    }

    /// The member named `name` (trimmed, by its bytes), or `unknown_member` (exit 65) listing who there is.
    static func member(named name: String, in members: [Member]) throws -> Member {
        if let member = Member.named(name, in: members) { return member }
        throw CommandFailure(.dataError, "Error: unknown_member: no member is named \(DisplayText.quoted(name))"
                             + (members.isEmpty ? "; add one with `expense member add NAME`"
                                : "; the members are " + members.map { DisplayText.quoted($0.name) }.joined(separator: ", ")))
    }

    /// `member_exists` when a member other than `except` has `name`.
    private static func checkNameFree(_ name: String, among members: [Member], except id: UUID?) throws {
        guard let other = Member.named(name, in: members), other.id != id else { return }
        throw LedgerDataError.memberExists(other.name)
    }
}
