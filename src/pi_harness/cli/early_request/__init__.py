"""The early first request of ``pi -p``: a request recorded on an earlier run of the same
command, sent before the session has loaded, and used only when the session's own first request
turns out to be the same bytes (``replay.py`` sends it, ``recorder.py`` records it,
``record.py`` is its file, ``trace.py`` what startup looked at, ``template.py`` its holes).
"""
