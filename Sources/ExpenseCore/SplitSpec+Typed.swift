import FoundationEssentials

/// A split as a person types it and reads it: by member names, in the forms `expense add --split` takes.
extension SplitSpec {
    /// Reads a split as a person types it, naming members by name.
    ///
    /// The forms (names are trimmed of white space around them; `member` turns each into an id, and throws
    /// `unknown_member` or `member_left` itself):
    /// - `alice,bob,carol`: equal among these;
    /// - `all`: equal among `everyone()` (so no member can be named `all` here);
    /// - `alice=2,bob=1`: shares, whole numbers from 1 to 1,000,000;
    /// - `alice=50%,bob=30%,carol=20%`: percentages with at most two decimals, adding up to 100%;
    /// - `alice=12.50,bob=7.50`: exact amounts in `currency`, read by ``Money/parse(_:currency:)``; the caller
    ///   checks their sum against the expense's amount with ``validate(amount:currency:)``.
    ///
    /// Which weighted form is meant: if any value has `%`, the split is in percentages (and every value must
    /// have one); otherwise, if any value has a decimal point, it is in exact amounts (every value is an amount:
    /// `alice=12.50,bob=5` gives bob 5.00); otherwise it is in shares. So `alice=2,bob=1` is always shares, never
    /// 2.00 and 1.00. In a currency without decimals, such as JPY, exact amounts cannot be told from shares that
    /// way (and `1000.` is not an amount): write the method first instead. A leading `equal:`, `shares:`,
    /// `percent:` or `exact:` names the method explicitly, and the values are then read in that form only:
    /// `exact:alice=1000,bob=500`, `shares:alice=2,bob=1`, `percent:alice=50,bob=50` (the `%` may then be left
    /// out), `equal:alice,bob`.
    ///
    /// A name holding `,` or `=` cannot be typed in a split, nor one that starts with a method name and a colon.
    /// - Throws: `invalid_split` for a malformed split or forms mixed, `duplicate_member` when two names give the
    ///   same member, `too_many_members`, `invalid_share` for a zero, negative or too large value, and whatever
    ///   `member` or `everyone` throw.
    public static func parse(
        _ typed: String, currency: Currency,
        member: (String) throws(SplitError) -> UUID,
        everyone: () throws(SplitError) -> [UUID]
    ) throws(SplitError) -> SplitSpec {
        var body = trimmed(typed)
        var explicit: Method?
        if let colon = body.firstIndex(of: ":"), let method = Method(rawValue: String(body[..<colon])) {
            explicit = method
            body = trimmed(body[body.index(after: colon)...])
        }
        guard !body.isEmpty else {
            throw .invalidSplit("the split is empty; name members, such as alice,bob, or write all")
        }
        if ExactText.same(body, "all") {
            guard explicit == nil || explicit == .equal else {
                throw .invalidSplit("all splits equally; give each member a value instead, such as alice=2,bob=1")
            }
            let ids = try everyone()
            guard !ids.isEmpty else { throw .invalidSplit("the ledger has no member to split among") }
            return try SplitSpec(method: .equal, parts: ids.map { Part(member: $0, weight: 1) })
        }
        let pieces = body.split(separator: ",", omittingEmptySubsequences: false)
        guard pieces.count <= maximumMembers else { throw .tooManyMembers(pieces.count) }
        var names: [String] = []
        var values: [String?] = []
        for piece in pieces {
            let name: String
            var value: String?
            if let equals = piece.firstIndex(of: "=") {
                name = trimmed(piece[..<equals])
                value = trimmed(piece[piece.index(after: equals)...])
            } else {
                name = trimmed(piece)
            }
            guard !name.isEmpty else {
                throw .invalidSplit("a member's name is missing in \(DisplayText.quoted(typed)); separate names with single commas")
            }
            if let value, value.isEmpty {
                throw .invalidSplit("\(DisplayText.quoted(name))= has no value after it")
            }
            names.append(name)
            values.append(value)
        }
        let method = try typedMethod(values: values, explicit: explicit)
        var weights: [Int64] = []
        for (name, value) in zip(names, values) {
            weights.append(try typedWeight(value ?? "1", of: name, method: method, currency: currency))
        }
        var parts: [Part] = []
        var seen = Set<UUID>()
        for (name, weight) in zip(names, weights) {
            let id = try member(name)
            guard seen.insert(id).inserted else { throw .duplicateMember(name) }
            parts.append(Part(member: id, weight: weight))
        }
        return try SplitSpec(method: method, parts: parts)
    }

    /// The method of a typed split whose values (`nil` for a name without one) are `values` (see
    /// ``parse(_:currency:member:everyone:)``).
    private static func typedMethod(values: [String?], explicit: Method?) throws(SplitError) -> Method {
        let valued = values.compactMap { $0 }
        if valued.isEmpty {
            switch explicit {
            case nil, .equal?: return .equal
            case let other?: throw .invalidSplit("a \(other.rawValue) split gives every member a value, such as \(other.rawValue):alice=2,bob=1")
            }
        }
        guard valued.count == values.count else {
            throw .invalidSplit("some members have a value and some do not; give every member one (alice=2,bob=1) or none (alice,bob)")
        }
        if let explicit {
            guard explicit != .equal else { throw .invalidSplit("an equal split names members without values: equal:alice,bob") }
            return explicit
        }
        let percents = valued.filter { $0.contains("%") }.count
        if percents > 0 {
            guard percents == valued.count else {
                throw .invalidSplit("percentages are mixed with other values; give every member a percentage, such as alice=50%,bob=50%")
            }
            return .percent
        }
        return valued.contains { $0.contains(".") } ? .exact : .shares
    }

    /// The weight of one typed value for `method`, refusing a zero, negative or too large one with
    /// `invalid_share` and anything else that is not a number of that form with `invalid_split`.
    private static func typedWeight(
        _ value: String, of name: String, method: Method, currency: Currency
    ) throws(SplitError) -> Int64 {
        let who = DisplayText.quoted(name)
        let shown = DisplayText.quoted(value)
        if value.hasPrefix("-") { throw .invalidShare("the value of \(who), \(shown), is negative; values are above zero") }
        switch method {
        case .equal:
            return 1
        case .exact:
            guard !value.contains("%") else { throw .invalidSplit("the amount of \(who), \(shown), is not an amount such as 12.50") }
            do {
                return try Money.parse(value, currency: currency)
            } catch let error as ValidationError {
                if value.utf8.contains(UInt8(ascii: "0")), value.utf8.allSatisfy({ $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: ".") }) {
                    throw .invalidShare("the amount of \(who) is zero; amounts are above zero")
                }
                throw .invalidSplit("the amount of \(who): \(error.message)")
            } catch {
                throw .invalidSplit("the amount of \(who), \(shown), is not an amount such as 12.50")
            }
        case .shares:
            let number = wholeOrDecimal(value, places: 0)
            guard let number else {
                throw .invalidSplit("the share of \(who), \(shown), is not a whole number such as 2")
            }
            guard (1...maximumShares).contains(number) else {
                throw .invalidShare("the share of \(who) is \(shown); shares are whole numbers from 1 to 1,000,000")
            }
            return number
        case .percent:
            var digits = Substring(value)
            if digits.last == "%" { digits.removeLast() }
            guard let number = wholeOrDecimal(digits, places: 2) else {
                throw .invalidSplit("the percentage of \(who), \(shown), is not a percentage such as 50% or 33.33%")
            }
            guard (1...percentTotal).contains(number) else {
                throw .invalidShare("the percentage of \(who) is \(shown); percentages are from 0.01% to 100%")
            }
            return number
        }
    }

    /// A plain decimal with at most `places` decimals (`12`, `12.5`; no sign, no exponent, no `.5` or `5.`) as a
    /// whole number of its last place (`12.5` with 2 places is 1250), or `nil`; a value too large for `Int64` is
    /// `Int64.max`, which every caller's range refuses.
    private static func wholeOrDecimal(_ text: some StringProtocol, places: Int) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty else { return nil }
        let fraction = parts.count == 2 ? Array(parts[1].utf8) : []
        guard parts.count == 1 || (!fraction.isEmpty && fraction.count <= places) else { return nil }
        let digits = Array(whole.utf8) + fraction + Array(repeating: UInt8(ascii: "0"), count: places - fraction.count)
        var value: Int64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { value = Int64.max } else { value = sum }
        }
        return value
    }

    /// The split as a person types it, naming members by `name`, with its method first so that it reads back
    /// as this split whatever the currency (``parse(_:currency:member:everyone:)``): `equal:alice,bob`,
    /// `shares:alice=2,bob=1`, `percent:alice=50%,bob=50%`, `exact:alice=12.50,bob=7.50` (amounts in `currency`).
    /// Parts are in member id order, as ``parts`` holds them. What CSV exports write.
    public func typedText(currency: Currency, name: (UUID) -> String) -> String {
        var text = method.rawValue + ":"
        for (index, part) in parts.enumerated() {
            if index > 0 { text += "," }
            text += name(part.member)
            switch method {
            case .equal: break
            case .shares: text += "=" + String(part.weight)
            case .percent: text += "=" + Self.percentText(Int128(part.weight))
            case .exact: text += "=" + Money.format(part.weight, currency: currency)
            }
        }
        return text
    }
}
