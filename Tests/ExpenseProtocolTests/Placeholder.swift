// Placeholder until this module's first test lands.
