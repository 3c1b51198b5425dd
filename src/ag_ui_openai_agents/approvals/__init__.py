"""Backend tool approval: AG-UI interrupts, signed or not, resumed from the conversation."""
