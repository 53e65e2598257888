import ExpenseCore
import Foundation
import Testing
import TestSupport

/// ``Conversion/convert(_:along:)`` against an independent implementation: Python's `decimal` module, which
/// multiplies the amount by each rate's text (divides by an inverted one's, once, at the end), shifts by the
/// minor units and rounds half to even at 200 digits. Both answer every seeded case; every answer must agree.
/// Without python3 the test is skipped (one line saying so), except under `CI=true`, where that fails.
@Suite struct ConversionPropertyTests {
    /// `/usr/bin/python3`, else the first `python3` on PATH; nil when there is none.
    static let python: String? = {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") { return "/usr/bin/python3" }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// Reads `amount from-digits to-digits (rate inverted)…` lines; writes the rounded result, or `overflow`, per
    /// line, then `ties N`: how many exact values lay halfway between two minor units.
    static let script = """
        from sys import argv
        from decimal import Decimal, getcontext, ROUND_HALF_EVEN
        getcontext().prec = 200
        limit = 2**53 - 1
        out = []
        ties = 0
        for line in open(argv[1]):
            parts = line.split()
            amount, source, target = int(parts[0]), int(parts[1]), int(parts[2])
            numerator, denominator = Decimal(amount), Decimal(1)
            for i in range(3, len(parts), 2):
                if parts[i + 1] == "1":
                    denominator *= Decimal(parts[i])
                else:
                    numerator *= Decimal(parts[i])
            exact = numerator.scaleb(target - source) / denominator
            value = exact.quantize(Decimal(1), rounding=ROUND_HALF_EVEN)
            if abs(exact - exact.to_integral_value(rounding="ROUND_FLOOR")) == Decimal("0.5"):
                ties += 1
            out.append("overflow" if abs(value) > limit else str(int(value)))
        out.append("ties %d" % ties)
        open(argv[2], "w").write("\\n".join(out) + "\\n")
        """

    /// Currencies of each number of minor units.
    static let byDigits: [[Currency]] = [["JPY", "KRW", "ISK"], ["USD", "EUR", "GBP"], ["BHD", "KWD", "OMR"], ["UYW"]]
        .map { $0.map(TestCurrency.named) }

    /// A rate of 1 to 12 significant digits, mostly between 10^-6 and 10^6; now and then one that makes ties.
    static func rate(_ generator: inout SeededGenerator) throws -> Rate {
        if Int.random(in: 0..<8, using: &generator) == 0 {
            let mantissa = [5, 25, 125, 15, 75, 2, 4, 8][Int.random(in: 0..<8, using: &generator)]
            return try Rate(mantissa: Int64(mantissa), scale: Int.random(in: 0...3, using: &generator))
        }
        let digits = Int.random(in: 1...Rate.maximumSignificantDigits, using: &generator)
        var mantissa: Int64 = 1
        for _ in 1..<digits { mantissa *= 10 }
        mantissa = Int64.random(in: mantissa..<(mantissa * 10), using: &generator)
        let scale = min(max(digits - 1 + Int.random(in: -6...6, using: &generator), 0), Rate.maximumScale)
        return try Rate(mantissa: mantissa, scale: scale)
    }

    /// An amount of 1 to 16 digits, either sign, now and then 0 or the largest.
    static func amount(_ generator: inout SeededGenerator) -> Int64 {
        let sign: Int64 = Bool.random(using: &generator) ? 1 : -1
        switch Int.random(in: 0..<20, using: &generator) {
        case 0: return 0
        case 1: return sign * ExpenseRules.maximumAmount
        default:
            var limit: Int64 = 1
            for _ in 0..<Int.random(in: 1...16, using: &generator) { limit *= 10 }
            return sign * Int64.random(in: 0..<min(limit, ExpenseRules.maximumAmount), using: &generator)
        }
    }

    /// A path of one or two rates between currencies of random minor units, each used directly or inverted.
    static func path(_ generator: inout SeededGenerator) throws -> ConversionPath {
        var currencies: [Currency] = []
        let count = Int.random(in: 1...2, using: &generator) + 1
        while currencies.count < count {
            let group = byDigits[Int.random(in: 0..<byDigits.count, using: &generator)]
            let currency = group[Int.random(in: 0..<group.count, using: &generator)]
            if !currencies.contains(currency) { currencies.append(currency) }
        }
        let day = try #require(CalendarDay("2026-12-04"))
        var steps: [ConversionStep] = []
        for (source, target) in zip(currencies, currencies.dropFirst()) {
            let inverted = Bool.random(using: &generator)
            let record = ExchangeRate(date: day, from: inverted ? target : source, to: inverted ? source : target, rate: try rate(&generator))
            steps.append(ConversionStep(rate: record, inverted: inverted))
        }
        return ConversionPath(from: currencies[0], to: currencies[count - 1], steps: steps)
    }

    @Test("convert agrees with Python's decimal (half to even, 200 digits) on 4000 seeded cases",
          .enabled(if: python != nil || ProcessInfo.processInfo.environment["CI"] == "true",
                   "python3 not found (/usr/bin/python3 or on PATH): the comparison with Python's decimal is skipped"))
    func agreesWithPythonDecimal() async throws {
        let python = try #require(Self.python, "python3 is needed under CI=true")
        var generator = SeededGenerator(seed: 0x33_2026_1204)
        var lines: [String] = [], expected: [String] = []
        for _ in 0..<4000 {
            let amount = Self.amount(&generator)
            let path = try Self.path(&generator)
            lines.append(([String(amount), String(path.from.minorUnits), String(path.to.minorUnits)]
                          + path.steps.flatMap { [$0.rate.rate.description, $0.inverted ? "1" : "0"] }).joined(separator: " "))
            expected.append(Conversion.convert(amount, along: path).map(String.init) ?? "overflow")
        }
        let directory = try TemporaryDirectory("conversion-property")
        defer { directory.remove() }
        let script = try directory.write("convert.py", Self.script)
        let input = try directory.write("cases.txt", lines.joined(separator: "\n") + "\n")
        let output = directory.file("results.txt")
        let errors = directory.file("stderr.txt")
        let status = try await onOwnThread { try Self.run(python, [script, input, output], errors: errors) }
        #expect(status == 0, "python3 failed: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        var answers = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
        let ties = answers.popLast().flatMap { $0.hasPrefix("ties ") ? Int($0.dropFirst(5)) : nil }
        #expect((ties ?? 0) >= 25, "the cases hold exact ties, which only half to even decides: \(String(describing: ties))")
        try #require(answers.count == lines.count, "python3 answered \(answers.count) of \(lines.count) cases")
        var mismatches = 0
        for (index, answer) in answers.enumerated() where answer != expected[index] {
            mismatches += 1
            if mismatches <= 10 { Issue.record("case \(index) `\(lines[index])`: Swift \(expected[index]), Python \(answer)") }
        }
        #expect(mismatches == 0)
        #expect(expected.filter { $0 == "overflow" }.count < lines.count / 4, "the cases are mostly conversions, not overflows")
    }

    /// Runs `executable` with `arguments` to its end, standard error into the file `errors`; its exit status.
    static func run(_ executable: String, _ arguments: [String], errors: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let errorFile = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        defer { try? errorFile.close() }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errorFile
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
