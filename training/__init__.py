"""Rebuilding the shipped networks: the renderer of training sessions, the crop cutter, the trainer, the quantiser and the recipe (`python -m training.rebuild`)."""
