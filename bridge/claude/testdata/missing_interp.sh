#!/nonexistent/interpreter
this script's interpreter does not exist
