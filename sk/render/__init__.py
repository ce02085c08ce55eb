"""Renders a plan: the SuperKernel source (templates), kernel JSON and the fusion report. No decisions."""
