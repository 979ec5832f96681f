"""The desktop window: views, item models and workers over the Qt-free core."""
