import ExpensedCLI
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

exit(await ExpensedCLI.main(arguments: Array(CommandLine.arguments.dropFirst())))
