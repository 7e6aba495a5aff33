-- The application tables examples/media-pipeline.hcl numbers. pgseq does not
-- create application tables; this file stands in for the app's own migrations.
CREATE SCHEMA IF NOT EXISTS media;
CREATE TABLE IF NOT EXISTS media.shows (
    id   bigint PRIMARY KEY,
    code text NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS media.episodes (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    show_id  bigint NOT NULL REFERENCES media.shows (id),
    number   bigint,
    title    text NOT NULL
);
