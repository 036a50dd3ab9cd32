// The precompiled header's own translation unit (cmake/FieldscopePch.cmake); it compiles nothing.
