// Placeholder until the first test lands.
