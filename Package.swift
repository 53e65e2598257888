// swift-tools-version:6.0
import PackageDescription

// Imports flow one way: ExpenseCore <- ExpenseProtocol, and ExpenseTransport (bytes and lines only) <- ExpenseServer /
// ExpenseClient <- CLIs <- executables.
// See docs/modules.md ("Where things live").
let package = Package(
    name: "expense",
    products: [
        .executable(name: "expense", targets: ["expense"]),
        .executable(name: "expensed", targets: ["expensed"]),
        .executable(name: "expense-bench", targets: ["expense-bench"]),
    ],
    targets: [
        // C: the system's libsqlite3, and a tiny header exposing epoll/accept4 (absent from Glibc's module map).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        // The system's OpenSSL 3 (libssl, libcrypto) and libpq; their headers wrap the few macros Swift cannot import.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL"),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ"),
        .target(name: "CEpoll", path: "Sources/CEpoll"),

        .target(name: "ExpenseCore"),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "PostgreSQL", dependencies: ["CLibPQ"]),
        .target(name: "CommandLineKit"),
        // posix_spawn children for the bench and the end-to-end tests (Foundation's Process crashes now and then).
        .target(name: "ProcessSpawn"),
        .target(name: "ExpenseProtocol", dependencies: ["ExpenseCore"]),
        .target(name: "ExpenseTransport", dependencies: ["CEpoll"]),
        .target(name: "ExpenseServer", dependencies: ["ExpenseCore", "ExpenseProtocol", "ExpenseTransport", "SQLite", "PostgreSQL"]),
        .target(name: "ExpenseClient", dependencies: ["ExpenseCore", "ExpenseProtocol", "ExpenseTransport", "SQLite"]),
        .target(name: "ExpenseCLI", dependencies: ["ExpenseCore", "ExpenseProtocol", "ExpenseClient", "CommandLineKit"]),
        .target(name: "ExpensedCLI", dependencies: ["ExpenseCore", "ExpenseServer", "ExpenseTransport", "CommandLineKit", "CEpoll"]),

        .executableTarget(name: "expense", dependencies: ["ExpenseCLI"]),
        .executableTarget(name: "expensed", dependencies: ["ExpensedCLI"]),
        .executableTarget(
            name: "expense-bench",
            dependencies: ["ExpenseCore", "ExpenseProtocol", "ExpenseTransport", "ExpenseClient", "CommandLineKit", "SQLite", "ProcessSpawn"]
        ),

        // What several test targets share (a seeded generator); not part of any product.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ExpenseCoreTests", dependencies: ["ExpenseCore", "TestSupport"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite"]),
        .testTarget(name: "PostgreSQLTests", dependencies: ["PostgreSQL", "TestSupport"]),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit", "ProcessSpawn", "TestSupport"]),
        .testTarget(name: "ExpenseProtocolTests", dependencies: ["ExpenseProtocol", "TestSupport"]),
        .testTarget(name: "ExpenseTransportTests", dependencies: ["ExpenseTransport", "TestSupport"]),
        .testTarget(name: "ExpenseServerTests", dependencies: ["ExpenseServer", "ExpenseTransport", "TestSupport", "PostgreSQL"]),
        .testTarget(name: "ExpenseClientTests", dependencies: ["ExpenseClient", "ExpenseServer", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["expense", "expensed", "ExpenseCLI", "ExpenseClient", "ExpenseProtocol", "ExpenseTransport", "ProcessSpawn", "TestSupport"]),
    ]
)
