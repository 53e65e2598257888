import Foundation
import Testing
import TestSupport

/// `expense report` opened in a real browser (headless Chromium, Debian's `chromium`): the screenshot at 1280
/// and 390 pixels is not blank and nothing overflows the page width, the PDF prints, and the DOM Chromium
/// built holds one bar per category and no script. Skipped (with the reason) where Chromium is absent; under
/// `CI=true` its absence is a failure (`.ci/run` installs it).
@Suite(.serialized) struct ReportRenderTests {
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Tools/check-report-render").path

    /// A ledger with hostile text: markup, quotes, ampersands, bidi controls, a long unbroken word.
    static let categories = ["food", "<script>alert(1)</script>", "rent & \"bills\" 'n' more", "\u{202E}lanigiro",
                             "café", "Очень-длинная-категория-без-единого-пробела-для-проверки", "🍕 pizza"]

    private func render(_ process: ExpenseProcess, _ html: String, narrowOnly: Bool = false) throws -> [String: Any] {
        let chromium = try #require(Self.chromium, "Chromium is not installed (apt-get install chromium), and CI=true")
        let result = try ExpenseProcess.run("/usr/bin/env", ["python3", Self.script, chromium, html, process.directory]
                                            + (narrowOnly ? ["--narrow-only"] : []),
                                            environment: ProcessInfo.processInfo.environment, scratch: process.directory,
                                            timeout: 300)
        #expect(result.status == 0, "\(result)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any], "\(result)")
    }

    @Test(.enabled(if: chromium != nil || isCI, "Chromium is not installed: apt-get install chromium (required under CI=true)"))
    func reportLooksRightInChromium() async throws {
        try await onOwnThread {
            let process = try ExpenseProcess()
            for (index, category) in Self.categories.enumerated() {
                try process.succeed(["add", "\(10 + index * 7).25", category, "--date", "2026-0\(index + 1)-1\(index)",
                                     "--note", "note <b>&amp; \"\(index)\" \u{202E}\u{2066}x"])
            }
            try process.succeed(["add", "3000", "food", "--currency", "JPY", "--date", "2026-05-05",
                                 "--note", String(repeating: "unbroken", count: 37)])
            let html = process.directory + "/report.html"
            try process.succeed(["report", "--output", html, "--from", "2026-01-01", "--to", "2026-12-31"])
            let text = try String(contentsOfFile: html, encoding: .utf8)
            #expect(!text.contains("<script>"))
            let figures = try render(process, html)
            for width in ["1280", "390"] {
                let screen = try #require(figures[width] as? [String: Any])
                #expect((screen["width"] as? Int) == Int(width))
                #expect((screen["distinctColours"] as? Int ?? 0) > 50, "blank at \(width): \(screen)")
                #expect((screen["variance"] as? Double ?? 0) > 100, "blank at \(width): \(screen)")
                #expect((screen["rightMarginInk"] as? Int) == 0, "text overflows the page at \(width) px: \(screen)")
            }
            #expect(figures["pdfHeader"] as? String == "%PDF-")
            #expect((figures["pdfPages"] as? Int ?? 0) >= 1)
            // Two currencies: USD's chart has a bar per category, JPY's one; one trend bar per month each.
            #expect(figures["categoryBars"] as? Int == Self.categories.count + 1)
            #expect(figures["monthBars"] as? Int == 24)
            #expect(figures["svgs"] as? Int == 4)
            #expect(figures["scripts"] as? Int == 0)
        }
    }

    @Test(.enabled(if: chromium != nil || isCI, "Chromium is not installed: apt-get install chromium (required under CI=true)"))
    func overflowCheckDetectsABrokenPage() async throws {
        try await onOwnThread {
            let process = try ExpenseProcess()
            try process.succeed(["add", "1", "food", "--date", "2026-03-03"])
            let html = process.directory + "/report.html"
            try process.succeed(["report", "--output", html, "--from", "2026-01-01", "--to", "2026-12-31"])
            // The same report with one line that cannot wrap: the check must see it cross the right margin.
            let broken = try String(contentsOfFile: html, encoding: .utf8).replacingOccurrences(
                of: "<main>", with: "<main><p style=\"white-space:nowrap\">" + String(repeating: "overflowing ", count: 40) + "</p>")
            try broken.write(toFile: html, atomically: true, encoding: .utf8)
            let figures = try render(process, html, narrowOnly: true)
            let screen = try #require(figures["390"] as? [String: Any])
            #expect((screen["rightMarginInk"] as? Int ?? 0) > 0, "the overflow check missed a line wider than the page: \(screen)")
        }
    }
}
