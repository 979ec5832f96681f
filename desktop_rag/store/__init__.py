"""The LanceDB tables and every read and write to them."""
