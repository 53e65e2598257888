// swift-tools-version:6.0
import PackageDescription

// The benchmark of docs/performance.md: `expense-bench`, the load generator and the figures' thresholds
// (thresholds.json), built on the modules of the package one directory up. Run it through `Scripts/bench`.
//
// The load generator is built without Swift's dynamic exclusivity checks in release: it is a measuring tool, the same
// for expensed, Redis and the pong server, and every check it makes is CPU the measured server does not get on two
// cores (about 400 instructions per ping). The daemon's modules keep the checks in every build: a memory-safety
// guarantee is not traded for ~960 instructions per ping. This flag is why the bench is not in the root package.
let benchExclusivity: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "expense-benchmarks",
    products: [
        .executable(name: "expense-bench", targets: ["expense-bench"]),
    ],
    dependencies: [
        .package(name: "expense", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "expense-bench",
            // The generator's epoll loops (CEpoll, SystemKit), its TLS client (ExpenseTransport's TLSSession), the `pg`
            // section's own multi-row insert through libpq's pipeline mode (PostgreSQL).
            dependencies: [.product(name: "ExpenseBenchSupport", package: "expense"), "CStorageCeiling"],
            swiftSettings: benchExclusivity
        ),
        // The raw-SQLite ceiling of the push figure: our SQLite store's rows written from C through the same
        // system libsqlite3 the daemon links, so the only cost left is SQLite's and the disk's.
        .target(name: "CStorageCeiling", linkerSettings: [.linkedLibrary("sqlite3"), .linkedLibrary("pthread")]),
        .testTarget(name: "ExpenseBenchTests", dependencies: ["expense-bench", "CStorageCeiling",
                                                            .product(name: "ExpenseBenchSupport", package: "expense")]),
    ]
)
