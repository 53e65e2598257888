/// The version of the protocol this code speaks.
public enum ProtocolVersion {
    public static let current: Int64 = 1
}
