import ExpenseCore

/// The changes of a pull page already written as JSON, one object per change in `seq` order, back to back in
/// one buffer: what the daemon sends, without a ``Record`` per change when a store writes them straight from its
/// rows (`SQLiteLedgerStore+PullPage.swift`). Each object is exactly what ``Record/write(to:)`` (or
/// ``DataRecord/write(to:)``) writes for that change.
public struct EncodedChanges: Sendable {
    /// The objects, without commas between them.
    private var writer: JSONWriter
    /// Where each object ends in `writer.bytes`.
    private var ends: [Int] = []
    /// Each object's `seq`.
    public private(set) var seqs: [Int64] = []

    /// An empty page with room for `capacity` bytes.
    public init(capacity: Int = 4096) {
        writer = JSONWriter(capacity: capacity)
    }

    /// The changes as ``Record/write(to:)`` writes them.
    public init(_ records: some Sequence<Record>) {
        self.init()
        for record in records { append(seq: record.seq) { record.write(to: &$0) } }
    }

    public var count: Int { seqs.count }

    /// The bytes of all the objects together.
    public var byteCount: Int { writer.bytes.count }

    /// The bytes of change `index`: one JSON object.
    public func object(_ index: Int) -> ArraySlice<UInt8> {
        writer.bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
    }

    /// The byte count of change `index`'s object.
    public func objectLength(_ index: Int) -> Int {
        ends[index] - (index == 0 ? 0 : ends[index - 1])
    }

    /// Appends the change of `seq` that `write` writes as one JSON object. If `write` throws, nothing is appended.
    public mutating func append(seq: Int64, _ write: (inout JSONWriter) throws -> Void) rethrows {
        let start = writer.bytes.count
        writer.needsComma = false
        do {
            try write(&writer)
        } catch {
            writer.bytes.removeSubrange(start...)
            throw error
        }
        ends.append(writer.bytes.count)
        seqs.append(seq)
    }

    /// Drops the last change.
    public mutating func removeLast() {
        ends.removeLast()
        seqs.removeLast()
        writer.bytes.removeSubrange((ends.last ?? 0)...)
    }

    /// `self` and `other` merged in `seq` order (the two are each in `seq` order and share no seq).
    public func merged(with other: EncodedChanges) -> EncodedChanges {
        var merged = EncodedChanges(capacity: byteCount + other.byteCount)
        var mine = 0, theirs = 0
        while mine < count || theirs < other.count {
            let takeMine = theirs == other.count || (mine < count && seqs[mine] < other.seqs[theirs])
            let (source, index) = takeMine ? (self, mine) : (other, theirs)
            merged.append(seq: source.seqs[index]) { $0.bytes.append(contentsOf: source.object(index)) }
            if takeMine { mine += 1 } else { theirs += 1 }
        }
        return merged
    }
}

/// A pull page ready to send (Protocol.md §5.3): its changes as JSON, the cursor and `more`.
public struct EncodedPullPage: Sendable {
    public var changes: EncodedChanges
    public var cursor: Int64
    public var more: Bool

    public init(changes: EncodedChanges, cursor: Int64, more: Bool) {
        self.changes = changes
        self.cursor = cursor
        self.more = more
    }

    /// The page of `result`, its expenses and other kinds merged in `seq` order as the wire carries them.
    public init(_ result: PullResult) {
        var changes = EncodedChanges(result.changes)
        if !result.dataChanges.isEmpty {
            var data = EncodedChanges()
            for record in result.dataChanges { data.append(seq: record.seq) { record.write(to: &$0) } }
            changes = changes.merged(with: data)
        }
        self.init(changes: changes, cursor: result.cursor, more: result.more)
    }

    /// The response line for this page, cut by bytes (Protocol.md §5.3): changes are added in order while the
    /// line (the envelope and the echoed `id` included, the `\n` not) stays within `maximumLineLength`; the first
    /// change that would pass it ends the page, which then has `more` true and the last change kept as its
    /// `cursor`. A page always holds its first change (a record is bounded, §6), so a pull always advances.
    ///
    /// `cursor` and `more` come first, before the changes: a client reading the line can ask for the next page
    /// as soon as the line's first bytes arrive, so this daemon prepares it while the rest of this one travels.
    /// - Returns: the whole line, `\n` included.
    public func responseLine(id: RequestID?, maximumLineLength: Int) -> [UInt8] {
        var writer = JSONWriter(capacity: min(64 + changes.byteCount + changes.count, maximumLineLength) + 64)
        writer.raw(#"{"jsonrpc":"2.0","id":"#)
        writer.requestID(id)
        writer.raw(#","result":"#)
        // What fits is counted first (the members' order does not change the line's length), so that the cursor
        // of a page that is cut can be written before its changes.
        var length = writer.bytes.count + Self.changesMember.count
        var kept = 0
        while kept < changes.count {
            let comma = kept > 0 ? 1 : 0, object = changes.objectLength(kept)
            if kept > 0, length + comma + object + PullResult.maximumTailBytes > maximumLineLength { break }
            length += comma + object
            kept += 1
        }
        let cut = kept < changes.count
        writer.beginObject()
        writer.member("cursor", cut ? changes.seqs[kept - 1] : cursor)
        writer.member("more", cut || more)
        writer.key("changes")
        writer.beginArray()
        for index in 0..<kept {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            writer.bytes.append(contentsOf: changes.object(index))
        }
        writer.endArray()
        writer.endObject()
        writer.raw("}\n")
        return writer.bytes
    }

    /// `{"changes":[`, which the length of a page's line counts where the changes begin.
    private static let changesMember = Array(#"{"changes":["#.utf8)
}
