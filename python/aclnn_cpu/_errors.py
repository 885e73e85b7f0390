"""The error an aclnn call reports."""


class AclnnError(RuntimeError):
    """An aclnn or acl call failed: ``code`` is its status (161002 is ACLNN_ERR_PARAM_INVALID,
    for example) and ``message`` the text ``aclGetRecentErrMsg`` gave for it."""

    def __init__(self, code, message):
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self):
        return f"{self.message} (aclnn status {self.code})"
