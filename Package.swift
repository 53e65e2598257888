// swift-tools-version:6.0
import PackageDescription

// Imports flow one way: ExpenseCore <- ExpenseProtocol, and ExpenseTransport (bytes and lines only) <- ExpenseServer /
// ExpenseClient <- CLIs <- executables.
// See docs/modules.md ("Where things live").
// The benchmark (`expense-bench`) is a package of its own in Benchmarks/, built on the library product below.

let package = Package(
    name: "expense",
    products: [
        .executable(name: "expense", targets: ["expense"]),
        .executable(name: "expensed", targets: ["expensed"]),
        // The modules Benchmarks/Package.swift builds its load generator on; not an API for anyone else.
        .library(name: "ExpenseBenchSupport", targets: ["ExpenseCore", "ExpenseProtocol", "ExpenseTransport", "SQLite", "PostgreSQL",
                                                        "SystemKit", "ProcessSpawn", "CEpoll"]),
    ],
    targets: [
        // C: the system's libsqlite3, and a tiny header exposing epoll/accept4 (absent from Glibc's module map).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        // The system's OpenSSL 3 (libssl, libcrypto) and libpq; their headers wrap the few macros Swift cannot import.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL"),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ"),
        .target(name: "CEpoll", path: "Sources/CEpoll"),
        // A TLS session's BIO over the event loop's own buffers (OpenSSL calls into it; see TLSSession).
        .target(name: "CRecordBIO", path: "Sources/CRecordBIO"),  // OpenSSL's headers; ExpenseTransport links it through COpenSSL

        .target(name: "ExpenseCore"),
        // The one retrying system-call wrapper, write-all, atomic file replacement, 0700-directory maker and stop signal.
        .target(name: "SystemKit", dependencies: ["CEpoll"]),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "PostgreSQL", dependencies: ["CLibPQ"]),
        .target(name: "CommandLineKit"),
        // posix_spawn children for the end-to-end tests and the bench (Foundation's Process crashes now and then).
        .target(name: "ProcessSpawn", dependencies: ["CEpoll", "SystemKit"]),  // closefrom in the child
        .target(name: "ExpenseProtocol", dependencies: ["ExpenseCore"]),
        .target(name: "ExpenseTransport", dependencies: ["CEpoll", "SystemKit", "COpenSSL", "CRecordBIO"]),  // TLS
        .target(name: "ExpenseServer", dependencies: ["ExpenseCore", "ExpenseProtocol", "ExpenseTransport", "SQLite", "PostgreSQL", "SystemKit",
                                                     "COpenSSL"]),  // tokens: SHA-256 and CRYPTO_memcmp
        .target(name: "ExpenseClient", dependencies: ["ExpenseCore", "ExpenseProtocol", "ExpenseTransport", "SQLite", "SystemKit"]),
        .target(name: "ExpenseCLI", dependencies: ["ExpenseCore", "ExpenseProtocol", "ExpenseClient", "CommandLineKit", "SystemKit"]),
        .target(name: "ExpensedCLI", dependencies: ["ExpenseCore", "ExpenseServer", "ExpenseTransport", "CommandLineKit", "SystemKit",
                                                   "ExpenseProtocol", "CEpoll"]),  // tokens: TokenRole, JSONWriter; SIGHUP

        .executableTarget(name: "expense", dependencies: ["ExpenseCLI"]),
        .executableTarget(name: "expensed", dependencies: ["ExpensedCLI"]),

        // Test targets declare every module they import (docs/modules.md). What several share (a seeded generator,
        // onOwnThread, proxies) is in TestSupport; not part of any product. LedgerTestSupport: `await` forms of a
        // ledger's calls, for the server's and the client's tests (the daemon itself has only completion forms).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .target(name: "LedgerTestSupport", dependencies: ["ExpenseCore", "ExpenseProtocol", "ExpenseServer"], path: "Tests/LedgerTestSupport"),
        .testTarget(name: "ExpenseCoreTests", dependencies: ["ExpenseCore", "TestSupport"]),
        .testTarget(name: "SQLiteTests", dependencies: ["CSQLite", "SQLite", "TestSupport"]),  // reads a statement's bindings directly
        .testTarget(name: "PostgreSQLTests", dependencies: ["PostgreSQL", "TestSupport"]),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit", "ProcessSpawn", "TestSupport"]),
        .testTarget(name: "ExpenseProtocolTests", dependencies: ["ExpenseCore", "ExpenseProtocol", "TestSupport"]),
        .testTarget(name: "ExpenseTransportTests", dependencies: ["ExpenseTransport", "TestSupport", "COpenSSL"]),  // TLSSessionTests reads OpenSSL directly
        .testTarget(name: "ExpenseServerTests", dependencies: ["ExpenseCore", "ExpenseProtocol", "ExpenseServer", "ExpenseTransport", "SQLite", "SystemKit", "TestSupport", "PostgreSQL",
                                                         "LedgerTestSupport"]),
        .testTarget(name: "ExpenseClientTests", dependencies: ["ExpenseCore", "ExpenseProtocol", "ExpenseTransport", "SQLite", "ExpenseClient", "ExpenseServer", "TestSupport", "PostgreSQL",
                                                         "LedgerTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["expense", "expensed", "ExpenseCLI", "ExpenseClient", "ExpenseCore", "ExpenseProtocol", "ExpenseTransport", "PostgreSQL", "ProcessSpawn", "SQLite", "TestSupport"]),
    ]
)
