-- Lets a single-statement batch commit abort itself (and so write nothing) when a guard fails.
CREATE FUNCTION hearth_abort(reason text) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION 'hearth commit aborted: %', reason USING ERRCODE = 'serialization_failure';
END;
$$;
