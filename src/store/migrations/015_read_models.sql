-- Read models in their own tables. Products used to query actor_snapshots (the runtime's private
-- table) through its `state` JSON and the generated columns of 014, which made the snapshot's
-- shape a public schema. Each product now declares a read model (ActorDefinition.view): one row
-- per actor in its own table, written by the same commit statement as the snapshot, so a read
-- sees exactly the committed state. `doc` is the actor's representation; the other columns are
-- what its reads filter and sort on. Text dates are ISO 8601 in UTC, so they sort as they read.

CREATE TABLE voucher_views (
  key            text  PRIMARY KEY,
  recipient_did  text,
  certificate_id text,
  status         text,
  expiry_date    text,
  created_at     text,
  doc            jsonb NOT NULL
);
CREATE INDEX voucher_views_by_recipient ON voucher_views (recipient_did);
CREATE INDEX voucher_views_by_certificate ON voucher_views (certificate_id);
CREATE INDEX voucher_views_by_created ON voucher_views (created_at DESC, key);

CREATE TABLE claim_views (
  key          text  PRIMARY KEY,
  claim_id     text,
  supplier_did text,
  voucher_id   text,
  created_at   text,
  doc          jsonb NOT NULL
);
CREATE INDEX claim_views_by_id ON claim_views (claim_id);
CREATE INDEX claim_views_by_created ON claim_views (created_at DESC, key);

CREATE TABLE survey_views (
  key         text  PRIMARY KEY,
  template_id text,
  project_id  text,
  status      text,
  created_at  text,
  doc         jsonb NOT NULL
);
CREATE INDEX survey_views_by_template ON survey_views (template_id);
CREATE INDEX survey_views_by_created ON survey_views (created_at DESC, key);

CREATE TABLE survey_response_views (
  key          text  PRIMARY KEY,
  survey_id    text,
  household_id text,
  recorded_at  text,
  doc          jsonb NOT NULL
);
CREATE INDEX survey_response_views_by_survey ON survey_response_views (survey_id, recorded_at DESC, key);

CREATE TABLE chat_views (
  key        text    PRIMARY KEY,
  owner_did  text,
  created_at text,
  deleted    boolean NOT NULL DEFAULT false,
  doc        jsonb   NOT NULL
);
CREATE INDEX chat_views_by_owner ON chat_views (owner_did, created_at DESC, key) WHERE NOT deleted;

-- What existed before this migration, as the read models declared in code would write it.
INSERT INTO voucher_views
SELECT key, state ->> 'recipientDid', state ->> 'emissionCertificateId', state ->> 'status',
       state -> 'attributes' ->> 'expiryDate', state ->> 'createdAt', state
FROM actor_snapshots WHERE type = 'voucher';
INSERT INTO claim_views
SELECT key, state ->> 'id', state ->> 'supplierDid', state ->> 'voucherId', state ->> 'createdAt', state
FROM actor_snapshots WHERE type = 'claim';
INSERT INTO survey_views
SELECT key, state ->> 'templateId', state ->> 'projectId', state ->> 'status', state ->> 'createdAt', state
FROM actor_snapshots WHERE type = 'survey';
INSERT INTO survey_response_views
SELECT key, state ->> 'surveyId', state ->> 'householdId', state ->> 'timestamp', state
FROM actor_snapshots WHERE type = 'survey-response';
INSERT INTO chat_views
SELECT key, state ->> 'ownerDid', state ->> 'createdAt', coalesce((state ->> 'deleted')::boolean, false), state
FROM actor_snapshots WHERE type = 'chat';

-- The snapshot table goes back to the runtime alone (dropping a column is only a catalogue
-- change; the indexes on these columns go with them).
ALTER TABLE actor_snapshots
  DROP COLUMN voucher_recipient,
  DROP COLUMN voucher_certificate,
  DROP COLUMN claim_id,
  DROP COLUMN chat_owner,
  DROP COLUMN chat_created_at;

-- The partition of a key, as the runtime computes it (keys.ts: FNV-1a, 32 bit, over UTF-16 code
-- units, modulo the type's partitions): what lets a partition's owner retire its own idle
-- actors in SQL, through its fence, without listing every key.
CREATE FUNCTION hearth_fnv1a(t text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  h  bigint := 2166136261;
  cp integer;
BEGIN
  FOREACH cp IN ARRAY (SELECT coalesce(array_agg(ascii(c)), '{}') FROM regexp_split_to_table(t, '') AS c WHERE c <> '') LOOP
    IF cp > 65535 THEN
      -- Outside the BMP, JavaScript strings hold a surrogate pair: hash both halves.
      h := ((h # (55296 + ((cp - 65536) >> 10))) * 16777619) & 4294967295;
      h := ((h # (56320 + ((cp - 65536) & 1023))) * 16777619) & 4294967295;
    ELSE
      h := ((h # cp) * 16777619) & 4294967295;
    END IF;
  END LOOP;
  RETURN h;
END
$$;

CREATE FUNCTION hearth_partition(key text, partitions integer) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (hearth_fnv1a(key) % partitions)::integer;
