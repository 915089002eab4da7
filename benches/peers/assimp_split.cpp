// Peer harness for the split benchmark (benches/README.md): imports a glTF/GLB with
// Assimp and runs its SplitByBoneCount step at N bones per mesh, with
// JoinIdenticalVertices welding each submesh's vertices (SplitByBoneCount writes one
// vertex per face corner), then prints the skinned meshes (parts) and their vertices
// before and after (and welded without a split, the baseline of the duplication), and the
// most bones one part has. Built against Debian's
// libassimp-dev: g++ -O2 assimp_split.cpp -lassimp -o assimp_split
#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/config.h>
#include <cstdio>
#include <cstdlib>

struct Count {
    unsigned long long parts = 0, vertices = 0, faces = 0;
    unsigned max_bones = 0;
};

// Skinned meshes only; a bone counts when it carries a non-zero weight.
static Count count(const aiScene* s) {
    Count c;
    for (unsigned m = 0; m < s->mNumMeshes; ++m) {
        const aiMesh* mesh = s->mMeshes[m];
        if (mesh->mNumBones == 0) continue;
        unsigned used = 0;
        for (unsigned b = 0; b < mesh->mNumBones; ++b) {
            const aiBone* bone = mesh->mBones[b];
            for (unsigned w = 0; w < bone->mNumWeights; ++w) {
                if (bone->mWeights[w].mWeight != 0.0f) { ++used; break; }
            }
        }
        c.parts += 1;
        c.vertices += mesh->mNumVertices;
        c.faces += mesh->mNumFaces;
        if (used > c.max_bones) c.max_bones = used;
    }
    return c;
}

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: assimp_split FILE N\n");
        return 2;
    }
    int n = std::atoi(argv[2]);
    Assimp::Importer importer;
    importer.SetPropertyInteger(AI_CONFIG_PP_SBBC_MAX_BONES, n);
    const aiScene* scene = importer.ReadFile(argv[1], 0);
    if (!scene) {
        std::fprintf(stderr, "assimp: %s\n", importer.GetErrorString());
        return 1;
    }
    Count before = count(scene);
    scene = importer.ApplyPostProcessing(aiProcess_SplitByBoneCount | aiProcess_JoinIdenticalVertices);
    if (!scene) {
        std::fprintf(stderr, "assimp: %s\n", importer.GetErrorString());
        return 1;
    }
    Count after = count(scene);
    // The baseline of the duplication: the same file welded without a split.
    Assimp::Importer welded;
    const aiScene* w = welded.ReadFile(argv[1], aiProcess_JoinIdenticalVertices);
    unsigned long long base = w ? count(w).vertices : 0;
    std::printf("before: %llu skinned mesh(es), %llu vertices (%llu welded), %llu faces; after SplitByBoneCount(%d)+JoinIdenticalVertices: %llu part(s), %llu vertices, %llu faces, at most %u bones in use per part\n",
                before.parts, before.vertices, base, before.faces, n, after.parts, after.vertices, after.faces, after.max_bones);
    return 0;
}
