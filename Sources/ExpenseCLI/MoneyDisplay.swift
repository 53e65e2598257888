import ExpenseCore
import Foundation

/// How amounts are shown to people in tables, charts and messages: either the plain form (`1234567.50`, with
/// the currency code beside it) or the way a locale writes money (`1.234.567,50 €` in de_DE, `€12,34,567.50`
/// in en_IN, `¥1,250` in ja_JP), through Foundation's currency format style.
///
/// Only for people: `--json`, CSV and everything a script reads keep minor units or ``Money/format(_:currency:includeCode:)``'s
/// plain decimals, and input stays strict (`12.50`) whatever the locale.
///
/// - Important: the value formatted is an exact `Decimal` built from the integer minor units (significand and a
///   negative exponent), never a binary floating-point value: every amount up to `Int64.max` minor units prints every digit. The
///   number of decimals is always the currency's ISO 4217 minor unit from our table, not ICU's default (which
///   rounds some, such as IRR, to whole units).
struct MoneyDisplay: Sendable {
    /// The locale money is written in; `nil` for the plain form.
    let locale: Locale?

    /// The plain form: C/POSIX, no locale set, or one Foundation does not know.
    static let plain = MoneyDisplay(locale: nil)

    /// The value of `expense config set locale` that goes back to following the environment.
    static let automatic = "auto"

    /// The display for `environment` and the configured locale (``StoreMetaKey/displayLocale``): `LC_ALL`, then
    /// `configured`, then `LC_MONETARY`, then `LANG`, the first that is set and not empty. `LC_ALL` comes first
    /// so that `LC_ALL=C expense …` is plain whatever is configured, as POSIX programs do. A value that names
    /// no locale Foundation knows gives the plain form (glibc falls back to C the same way).
    static func resolve(environment: [String: String], configured: String?) -> MoneyDisplay {
        let candidates = [environment["LC_ALL"], configured, environment["LC_MONETARY"], environment["LANG"]]
        guard let chosen = candidates.lazy.compactMap({ $0 }).first(where: { !$0.isEmpty && $0 != automatic }) else {
            return .plain
        }
        return identifier(chosen).map { MoneyDisplay(locale: Locale(identifier: $0)) } ?? .plain
    }

    /// The Foundation identifier for a POSIX locale name (`de_DE.UTF-8`, `de_DE@euro`) or a BCP 47 tag
    /// (`de-DE`): `de_DE`. `nil` for C and POSIX (the plain form) and for a locale Foundation does not know.
    static func identifier(_ name: String) -> String? {
        // The codeset (`.UTF-8`) and a POSIX modifier (`@euro`) say nothing about how money is written, and
        // ICU misreads `@euro` as a keyword (it then drops the grouping).
        let base = String(name.prefix { $0 != "." && $0 != "@" }).replacingOccurrences(of: "-", with: "_")
        guard !base.isEmpty, base != "C", base != "POSIX" else { return nil }
        return knownIdentifiers.contains(base) ? base : nil
    }

    /// Whether `name` (for `config set locale`) is C/POSIX, `auto`, or a locale Foundation knows.
    static func isValidSetting(_ name: String) -> Bool {
        if name == automatic { return true }
        let base = String(name.prefix { $0 != "." && $0 != "@" })
        return base == "C" || base == "POSIX" || identifier(name) != nil
    }

    /// The form `config set locale` stores: `de_DE` for `de-DE.UTF-8`, and C, POSIX and `auto` as given.
    static func canonicalSetting(_ name: String) -> String {
        identifier(name) ?? String(name.prefix { $0 != "." && $0 != "@" })
    }

    private static let knownIdentifiers = Set(Locale.availableIdentifiers)

    /// Whether amounts carry their currency (a locale's symbol), so a table needs no currency column.
    var showsCurrency: Bool { locale != nil }

    /// An amount for a column beside its currency code: `12.50` plain, `12,50 €` in de_DE.
    func figure(_ minorUnits: Int64, currency: Currency) -> String {
        guard let locale else { return Money.format(minorUnits, currency: currency) }
        return Self.formatted(minorUnits, currency: currency, locale: locale)
    }

    /// An amount standing alone in a sentence: `12.50 USD` plain, `12,50 $` in de_DE.
    func text(_ minorUnits: Int64, currency: Currency) -> String {
        guard let locale else { return Money.format(minorUnits, currency: currency, includeCode: true) }
        return Self.formatted(minorUnits, currency: currency, locale: locale)
    }

    /// `minorUnits` as an exact decimal, written by `locale`'s currency format with the currency's decimals.
    static func formatted(_ minorUnits: Int64, currency: Currency, locale: Locale) -> String {
        let style = Decimal.FormatStyle.Currency(code: currency.code, locale: locale)
            .precision(.fractionLength(currency.minorUnits))
        return exactDecimal(minorUnits, currency: currency).formatted(style)
    }

    /// `minorUnits × 10^−minorUnits` of `currency`, exactly (a 64-bit significand fits `Decimal`'s 128-bit one).
    static func exactDecimal(_ minorUnits: Int64, currency: Currency) -> Decimal {
        Decimal(sign: minorUnits < 0 ? .minus : .plus, exponent: -currency.minorUnits,
                significand: Decimal(minorUnits.magnitude))
    }
}
