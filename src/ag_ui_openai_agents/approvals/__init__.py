"""Internal: backend tool approval as AG-UI interrupts, signed or not, resumed from history."""
