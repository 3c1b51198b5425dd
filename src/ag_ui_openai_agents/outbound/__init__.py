"""Internal: outbound translation: the SDK's stream turned into ordered AG-UI events (sans-IO)."""
