import CLibPQ
#if canImport(Glibc)
import Glibc
#endif

/// The parameters of one statement as libpq takes them (`PQexecParams`, `PQsendQueryParams`): every value copied
/// into one buffer, text values NUL-terminated in the text format with no type (the server infers it from the
/// statement), ``PostgresValue/binary(_:type:)`` values in the binary format with their length and type, NULL as
/// a null pointer. The one place parameters are marshalled, for single statements and pipelines alike.
enum PostgresParameters {
    /// Calls `body` with the count, types, values, lengths and formats of `parameters`, valid during the call.
    static func with<R>(_ parameters: [PostgresValue],
                        _ body: (Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?,
                                 UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws -> R) rethrows -> R {
        var types = [Oid](repeating: 0, count: parameters.count)
        var lengths = [Int32](repeating: 0, count: parameters.count)
        var formats = [Int32](repeating: 0, count: parameters.count)
        var offsets = [Int](repeating: -1, count: parameters.count)
        var storage: [UInt8] = []
        for (index, parameter) in parameters.enumerated() {
            switch parameter {
            case .null:
                continue
            case .binary(let bytes, let type):
                offsets[index] = storage.count
                storage += bytes
                types[index] = type
                lengths[index] = Int32(bytes.count)
                formats[index] = 1
            default:
                offsets[index] = storage.count
                storage += (parameter.textForm ?? "").utf8
                storage.append(0)
            }
        }
        storage.append(0)  // never empty: a zero-length binary value still gets an address, so it is not NULL
        return try storage.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress.map(UnsafeRawPointer.init)
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset < 0 ? nil : base?.advanced(by: offset).assumingMemoryBound(to: CChar.self)
            }
            return try types.withUnsafeBufferPointer { types in
                try values.withUnsafeBufferPointer { values in
                    try lengths.withUnsafeBufferPointer { lengths in
                        try formats.withUnsafeBufferPointer { formats in
                            try body(Int32(parameters.count), types.baseAddress, values.baseAddress, lengths.baseAddress,
                                     formats.baseAddress)
                        }
                    }
                }
            }
        }
    }
}
