"""A cluster of Connect workers: group membership, assignment, forwarding and fencing."""
