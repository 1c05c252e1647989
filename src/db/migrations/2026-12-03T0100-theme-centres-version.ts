/**
 * A counter per question for "its themes' centres changed" (issue 24, analysis cost per answer):
 * `theme_builds.centres_version`, raised by triggers on every insert and delete of a theme and
 * every update of a theme's `uuid`, `centre` or question, whoever writes. The analyse job keeps
 * each question's decoded theme centres in memory and trusts them while this counter (read in the
 * same UPDATE … RETURNING that counts the answer, under the build row's lock) and the build's
 * `built_at` have not moved (src/modules/themes/model-cache.ts), instead of reading and decoding
 * every centre for every answer. Frozen: never edit, add a new migration.
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

const bumpOf = (row: "NEW" | "OLD") =>
  `UPDATE theme_builds SET centres_version = centres_version + 1 WHERE link_uuid = ${row}.link_uuid AND question_uuid = ${row}.question_uuid`;
const CENTRE_COLUMNS = "uuid, centre, link_uuid, question_uuid";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("theme_builds")
    .addColumn("centres_version", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  if (isPostgres(db)) {
    await sql
      .raw(
        `CREATE FUNCTION theme_centres_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
           IF TG_OP <> 'INSERT' THEN ${bumpOf("OLD")}; END IF;
           IF TG_OP <> 'DELETE' THEN ${bumpOf("NEW")}; END IF;
           RETURN NULL; END $$`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER themes_centres_version AFTER INSERT OR DELETE OR UPDATE OF ${CENTRE_COLUMNS} ON themes FOR EACH ROW EXECUTE FUNCTION theme_centres_version_bump()`,
      )
      .execute(db);
    // TRUNCATE fires no row trigger: every question's counter moves.
    await sql
      .raw(
        `CREATE FUNCTION theme_centres_version_bump_all() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE theme_builds SET centres_version = centres_version + 1; RETURN NULL; END $$`,
      )
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER themes_centres_version_truncate AFTER TRUNCATE ON themes FOR EACH STATEMENT EXECUTE FUNCTION theme_centres_version_bump_all()`)
      .execute(db);
    return;
  }
  await sql.raw(`CREATE TRIGGER themes_centres_version_insert AFTER INSERT ON themes BEGIN ${bumpOf("NEW")}; END`).execute(db);
  await sql.raw(`CREATE TRIGGER themes_centres_version_delete AFTER DELETE ON themes BEGIN ${bumpOf("OLD")}; END`).execute(db);
  await sql
    .raw(`CREATE TRIGGER themes_centres_version_update AFTER UPDATE OF ${CENTRE_COLUMNS} ON themes BEGIN ${bumpOf("OLD")}; ${bumpOf("NEW")}; END`)
    .execute(db);
}
