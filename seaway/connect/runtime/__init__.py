"""The Connect runtime: workers, herders, state stores."""
