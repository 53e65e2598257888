@testable import CommandLineKit
import Testing

private let root = CommandSpec(
    name: "tool", abstract: "A test tool.",
    discussion: "  .dots start this line, and a back\\slash.\n\n  A second paragraph.",
    subcommands: [
        CommandSpec(name: "add", abstract: "Add a thing.", arguments: [ArgumentSpec("amount", help: "How much.")],
                    options: [.option("date", short: "d", value: "date", help: "The day, such as 2026-01-02.")]),
        CommandSpec(name: "config", abstract: "Configure.", subcommands: [CommandSpec(name: "get", abstract: "Get a key.")]),
    ])

private let page = ManualPage(section: 1, date: "2026-12-01", source: "tool 1.0",
                              footer: "EXIT CODES:\n  0  success\n 64  usage\n\nENVIRONMENT:\n  TOOL_HOME  where", seeAlso: ["toold(8)"])
    .render(root: root)

@Test func pageHasTheManSections() {
    #expect(page.contains("\n.TH TOOL 1 2026-12-01 \"tool 1.0\" \"User Commands\"\n"))
    #expect(page.contains("\n.SH NAME\ntool \\- A test tool\n"))
    for section in ["SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "SEE ALSO"] {
        #expect(page.contains("\n.SH \(section)\n"), "missing \(section)")
    }
    #expect(page.contains("\n.SS \"tool config get\"\n"))
    #expect(!page.contains(".SS \"tool config\"\n"))   // only commands that run something
    #expect(page.contains("\n.TP\n\\fB\\-d\\fR, \\fB\\-\\-date\\fR \\fIdate\\fR\nThe day, such as 2026\\-01\\-02.\n"))
    #expect(page.contains("\n.nf\n 0  success\n64  usage\n.fi\n"))
    #expect(page.contains("\n.BR toold (8)\n"))
}

@Test func textCannotBeReadAsRequests() {
    #expect(page.contains("\n\\&.dots start this line, and a back\\eslash.\n.PP\nA second paragraph.\n"))
    #expect(ManualPage.escape("'quoted") == "\\&'quoted")
    #expect(ManualPage.quoted("a \"b\"") == "\"a \\(dqb\\(dq\"")
}
