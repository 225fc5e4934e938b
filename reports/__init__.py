"""What people read: certificates, paper-check reports, figures, and the ``blanket`` command line."""
